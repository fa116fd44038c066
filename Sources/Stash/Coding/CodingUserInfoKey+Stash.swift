extension CodingUserInfoKey {
    /// The key under which a decoder carries the `ManagedObjectContext` that decoded
    /// objects are inserted into (step 2 of the classic Core Data recipe):
    ///
    /// ```swift
    /// decoder.userInfo[.managedObjectContext] = context
    /// ```
    public static let managedObjectContext = CodingUserInfoKey(rawValue: "Stash.managedObjectContext")!

    /// `true` here makes `ManagedObjectContext.decode(_:from:using:)` decode with JSONDecoder
    /// even where the byte-level reader would be taken: for the tests comparing the two.
    package static let byteReaderDisabled = CodingUserInfoKey(rawValue: "Stash.byteReaderDisabled")!
}

extension ManagedObjectContext {
    /// The context a decoder carries, or an error naming the entity being decoded.
    static func carried(by decoder: any Decoder, decoding type: ManagedObject.Type) throws -> ManagedObjectContext {
        // The reader found its context once, not per object (2.7k instructions an object
        // through `userInfo`). Told by its type, not by `as?`: a cast that fails (any other
        // decoder, JSONDecoder's in the recipe) tries bridging first, about 1.8k instructions
        // an object (graph import through the recipe, stash-bench under callgrind).
        switch _openExistential(decoder, do: stashDecoder) {
        case .tape(let reader): if let context = reader.document.context { return context }
        // The default decoding's first step: how `ReaderEligibility` recognizes it.
        case .probe: throw DefaultDecodingProbe.Reached()
        case nil: break
        }
        if let context = ConstructionFrame.current.takeHandedOverContext(for: type) { return context }
        guard let value = decoder.userInfo[.managedObjectContext],
            let context = _openExistential(value, do: exactContext) ?? (value as? ManagedObjectContext)
        else {
            throw StashError(
                .missingContext,
                "decoding a managed object needs a context: set decoder.userInfo[.managedObjectContext] = context",
                entity: String(describing: type), codingPath: CodingPathText.format(decoder.codingPath))
        }
        return context
    }
}

/// `value` if it is a context, told by its type: `as?` from the existential goes through the
/// runtime's general cast, 264 instructions an object in the recipe's import.
private func exactContext<Value>(_ value: Value) -> ManagedObjectContext? {
    Value.self == ManagedObjectContext.self
        ? unsafeDowncast(unsafeBitCast(value, to: AnyObject.self), to: ManagedObjectContext.self) : nil
}

/// One of Stash's own decoders, told by type.
private enum StashDecoder {
    case tape(TapeDecoder)
    case probe
}

/// `decoder` if it is the byte-level reader's or the eligibility probe, found by comparing
/// types.
private func stashDecoder<Opened: Decoder>(_ decoder: Opened) -> StashDecoder? {
    // The cast runs only when it succeeds, between identical types: the runtime's quick case.
    if Opened.self == TapeDecoder.self { return .tape(decoder as! TapeDecoder) }
    if Opened.self == DefaultDecodingProbe.self { return .probe }
    return nil
}
