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
        if let reader = _openExistential(decoder, do: tapeDecoder), let context = reader.document.context {
            return context
        }
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
            // The default decoding's first step: how `ReaderEligibility` recognizes it.
            if decoder is DefaultDecodingProbe { throw DefaultDecodingProbe.Reached() }
            throw StashError(
                .missingContext,
                "decoding a managed object needs a context: set decoder.userInfo[.managedObjectContext] = context",
                entity: String(describing: type), codingPath: CodingPathText.format(decoder.codingPath))
        }
        return context
    }
}

/// `decoder` if it is the byte-level reader's, found by comparing types.
private func tapeDecoder<Opened: Decoder>(_ decoder: Opened) -> TapeDecoder? {
    // The cast runs only when it succeeds, between identical types: the runtime's quick case.
    Opened.self == TapeDecoder.self ? (decoder as! TapeDecoder) : nil
}
