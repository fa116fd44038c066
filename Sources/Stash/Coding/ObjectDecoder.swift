/// The context's part that decodes objects into it, for the recipe's `init(from:)`, for
/// `context.decode` (JSONDecoder or the byte-level reader) and for StashREST: it finds the
/// object a decoded unique value names (in the context, then the store), or makes a new one,
/// sets every attribute and relationship the JSON has, and names the entity, attribute and
/// coding path in any error. The values it keeps live only while a decode runs.
final class ObjectDecoder: ContextPart {
    // Unchecked, these fields that every decoded object reads: the context is used from one
    // isolation at a time (see `Confinement`), and the runtime's check costs about 85
    // instructions an access (see `ManagedObject.state` for the figure).
    /// Set while `decode(_:from:using:parent:via:)` runs: the children's parent.
    @exclusivity(unchecked) var parent: DecodingParent?
    /// Set while `recordingDecodedValues(into:_:)` runs: what each decoded object was given.
    @exclusivity(unchecked) var record: DecodedValueRecord?
    /// Set while a nested object's `init(from:)` runs: the container already made for it,
    /// and its class, compared before the container is touched (see `handingOver`).
    @exclusivity(unchecked) var handedOverContainer: KeyedDecodingContainer<AttributeKey>?
    /// The byte-level reader's own container that `handedOverContainer` boxes, if it is one.
    @exclusivity(unchecked) var handedOverTape: TapeKeyedContainer<AttributeKey>?
    @exclusivity(unchecked) var handedOverType: ObjectIdentifier?
    /// What the last nested object decoded (the one its relationship handed over) gave its
    /// attributes, if it can be applied again as it is (see `NestedObjectMemo`); `nil` if not.
    @exclusivity(unchecked) var lastNestedAttributes: DecodedAttributes?
    /// The arrays `decodeAttributes` decodes an object's unique values into, emptied and kept
    /// for the next object: making, growing and freeing two arrays an object cost about 950
    /// instructions (the recipe's graph import under callgrind). Taken while in use, so that a
    /// decode nested inside one finds none and makes its own.
    @exclusivity(unchecked) private var spareUniqueValues: [(AttributeDescription, Any)] = []
    @exclusivity(unchecked) private var spareKeys: [(index: Int, key: StoredValue)] = []
    /// The array an object the context has gets its other decoded values in (`update`), kept
    /// in the same way.
    @exclusivity(unchecked) private var spareValues: [(AttributeDescription, Any)] = []
    /// What `decodeAttributes` decoded, when asked to keep it (`capturing`).
    @exclusivity(unchecked) private var capturedAttributes: DecodedAttributes?
    /// Set by the reader's nested objects (`nestedTarget`) just before one is decoded: its
    /// values are then kept (`lastNestedAttributes`).
    @exclusivity(unchecked) var capturesNested = false
    /// How many nested objects `replay` applied without decoding them, for the tests.
    private(set) var replayedObjects = 0
    /// Set while `decodeAndSave` runs, in its own context: the batches it writes.
    var batches: BatchedSave?

    /// Decodes one object of `type` into this context: finds the object its unique value
    /// names, in the context or in the store, or makes a new one, and sets every attribute
    /// the JSON has.
    ///
    /// Keys absent from the JSON leave the attribute as it is: its default for a new
    /// object, its stored value for an existing one. A missing required key is an error only
    /// for a new object. `null` for a non-optional attribute with a default counts as absent.
    func decodeObject(of type: ManagedObject.Type, from decoder: any Decoder) throws -> ManagedObject {
        try withContext { context in
            let state = try context.identity.state(forType: type)
            let entity = state.entity
            return try withErrorContext(entity, decoder) {
                // A nested object on the reader's tape, whose values `nestedTarget` keeps.
                let isNested = capturesNested && handedOverType == ObjectIdentifier(type)
                if isNested { capturesNested = false }
                // An object with relationships decodes them after its attributes were applied
                // and it entered the context: if they fail, a journal of its own puts the
                // context back as it was before this object (when none is open: the recipe's
                // path; `context.decode` has one around everything). A `do` in place, not a
                // closure: wrapping this method's body in one cost the recipe's graph import 1%.
                // The open journal is looked at first: asked to open one, the context enters
                // (170 instructions an essay of `context.decode`'s graph import).
                let journal =
                    entity.relationships.isEmpty || context.tracker.journal != nil ? nil : context.openJournal()
                do {
                    // One container for the attributes and the relationships: making one reads
                    // the object's keys (a nested object's was made already, and handed over).
                    let (container, tape) = try attributeContainers(of: type, from: decoder)
                    let firstNewID = context.identity.nextTemporaryID
                    var (object, present) = try decodeAttributes(
                        of: state, from: container, tape: tape, capturing: isNested)
                    // Taken at once: a hook below (`awaken`) may decode other objects, which set it.
                    let captured = isNested ? capturedAttributes : nil
                    capturedAttributes = nil
                    var decoded: [Int: ManagedObject?] = [:]
                    // Children of a given parent take it in place of anything the JSON says.
                    let parent = self.parent.flatMap { $0.entity === entity ? $0 : nil }
                    if let parent, let slot = parent.relationship.slot { decoded[slot] = .some(parent.parent) }
                    if !state.compositeUniques.isEmpty, object.state == .inserted {
                        // A composite key may hold a related object: decoded first, set below.
                        let slots = Set(state.compositeUniques.joined()).subtracting(decoded.keys)
                        decoded.merge(try decodeTargets(in: slots, of: state, from: container)) { own, _ in own }
                        if let (holder, constraint) = try context.entering({
                            try context.resolver.compositeHolder(
                                for: object, in: state, targets: decoded.compactMapValues { $0 })
                        }) {
                            if context.policyInEffect.kind == .fail {
                                throw UniqueResolver.compositeConflict(state, constraint)
                            }
                            context.entering { context.resolver.standIn(object, for: holder, in: state) }
                            object = holder
                        }
                    }
                    if !entity.relationships.isEmpty {
                        let related = try decodeRelationships(
                            of: object, in: state, from: container, tape: tape, decoded: decoded,
                            ownKeysFirst: tape == nil && JSONDecoderKind.answersMissingKeysWithNull(decoder))
                        present = present.union(related)
                    }
                    // Made by this decode, and not found to stand for another: a new object.
                    if object.state == .inserted, object.temporaryID >= firstNewID {
                        context.entering { context.tracker.awaken(object) }
                    }
                    if let record = record { record.note(object, of: entity, setting: present) }
                    if isNested { keepNested(captured, of: state, from: container, under: parent) }
                    if let journal {
                        if let call = journal.refusedCall { throw ChangeJournal.refusal(of: call, in: context) }
                        context.closeJournal(journal, undoing: false)
                    }
                    return object
                } catch {
                    if let journal { context.closeJournal(journal, undoing: true) }
                    throw error
                }
            }
        }
    }

    /// Hands what a nested object decoded to over to `nestedTarget`, if it can be applied
    /// again as it is. Apart from `decodeObject`, which it would make too big to inline.
    @inline(never)
    private func keepNested(
        _ attributes: DecodedAttributes?, of state: EntityState, from container: KeyedDecodingContainer<AttributeKey>,
        under parent: DecodingParent?
    ) {
        let replayable =
            parent == nil && state.compositeUniques.isEmpty && Self.canReplay(state.entity, from: container)
        lastNestedAttributes = replayable ? attributes : nil
    }

    /// Whether what an object of `entity` decoded from `container` can be applied again to a
    /// copy of the same JSON without decoding it (`replay`): it names no related object
    /// (those are decoded or looked up each time), and its values are plain.
    private static func canReplay(_ entity: EntityDescription, from container: KeyedDecodingContainer<AttributeKey>)
        -> Bool
    {
        entity.attributes.allSatisfy { $0.isRelationship || $0.codec.holdsPlainValues }
            && entity.relationships.allSatisfy { relationship in
                !relationship.jsonKeys.contains { container.contains($0.key) }
            }
    }

    /// Applies `attributes`, what a nested object of `type` with the same JSON decoded to
    /// earlier in the document, as decoding that JSON again would: the object its unique
    /// values name in the context is updated (`update`), or, under `.fail`, the conflict is
    /// thrown. `nil` if the context has no such object now (deleted, or moved to another
    /// value since): the caller decodes the JSON.
    func replay(
        _ attributes: DecodedAttributes, as type: ManagedObject.Type, codingPath: () -> [any CodingKey]
    ) throws -> ManagedObject? {
        try withContext { context in
            let state = try context.identity.state(forType: type)
            let entity = state.entity
            if let parent, parent.entity === entity { return nil }
            return try withErrorContext(entity, codingPath: codingPath) {
                try context.entering {
                    for (index, key) in attributes.keys {
                        guard let existing = state.lookup(index, key, in: context) else { continue }
                        if context.policyInEffect.kind == .fail {
                            throw UniqueResolver.conflict(entity, entity.uniqueAttributes[index], key)
                        }
                        let present = apply(
                            attributes.uniqueValues, attributes.values, to: existing,
                            foundBy: entity.uniqueAttributes[index], in: context)
                        if let record { record.note(existing, of: entity, setting: present) }
                        replayedObjects += 1
                        return existing
                    }
                    return nil
                }
            }
        }
    }

    /// The container a relationship's decoding made for this object of `type`, if there is one
    /// (see `handingOver`); taken once. The class is compared first: reading the container
    /// for every object decoded cost 500 instructions an object.
    private func handedOver(_ type: ManagedObject.Type) -> (
        KeyedDecodingContainer<AttributeKey>, TapeKeyedContainer<AttributeKey>?
    )? {
        guard handedOverType == ObjectIdentifier(type), let container = handedOverContainer else { return nil }
        handedOverType = nil
        defer { (handedOverContainer, handedOverTape) = (nil, nil) }
        return (container, handedOverTape)
    }

    /// The object's container, and, from the byte-level reader, the reader's own container
    /// that it boxes, on which the attributes are decoded directly (`StorableValue+Tape.swift`):
    /// handed over by the relationship that names the object, or made here.
    private func attributeContainers(of type: ManagedObject.Type, from decoder: any Decoder) throws -> (
        KeyedDecodingContainer<AttributeKey>, TapeKeyedContainer<AttributeKey>?
    ) {
        if let handed = handedOver(type) { return handed }
        if Swift.type(of: decoder) == TapeDecoder.self, let reader = decoder as? TapeDecoder {
            let tape = try reader.attributeContainer()
            return (KeyedDecodingContainer(tape), tape)
        }
        return (try decoder.container(keyedBy: AttributeKey.self), nil)
    }

    /// The object, and the attributes the JSON gave values (what a re-fetch would set again);
    /// `capturing`, also every value decoded, in `capturedAttributes`, when all of them were
    /// (`replay` applies them).
    private func decodeAttributes(
        of state: EntityState, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?,
        capturing: Bool
    ) throws -> (ManagedObject, AttributeSet) {
        try withContext { context in
            let entity = state.entity
            return try context.entering {
                // The unique values come first: they say whether this is an object the context
                // already has, or a stored row's. Only then is a blank object made, which takes
                // the values as they are decoded and becomes the row's object or a new one, with
                // no copying; an object the context has (a nested author named by a thousand
                // articles) costs no blank at all.
                var changed = AttributeSet()
                var (uniqueValues, keys) = (spareUniqueValues, spareKeys)
                (spareUniqueValues, spareKeys) = ([], [])
                defer { keepSpares(&uniqueValues, &keys, unlessKept: capturing) }
                for (index, unique) in entity.uniqueAttributes.enumerated() {
                    // Any one unique value may name the object, so none is required yet.
                    guard let value = try presentValue(of: unique, from: container, tape: tape) else { continue }
                    uniqueValues.append((unique, value))
                    changed.insert(unique.index)
                    guard let key = try? unique.codec.storedValue(for: value), key != .null else { continue }
                    keys.append((index, key))
                }
                for (index, key) in keys {
                    guard let existing = state.lookup(index, key, in: context) else { continue }
                    if context.policyInEffect.kind == .fail {
                        throw UniqueResolver.conflict(entity, entity.uniqueAttributes[index], key)
                    }
                    let present = try update(
                        existing, foundBy: entity.uniqueAttributes[index], uniqueValues, keys, of: state,
                        from: container, tape: tape, capturing: capturing, in: context)
                    return (existing, present)
                }
                let object = entity.type.init()
                object.cachedEntity = entity
                for (unique, value) in uniqueValues { object.setValue(value, inSlot: unique.index) }
                for (index, key) in keys {
                    let unique = entity.uniqueAttributes[index]
                    guard
                        let rowID = try state.storedKeys[index].rowID(
                            for: key, column: unique.index, of: entity.schema, in: context.container)
                    else { continue }
                    if let registered = state.byRowID[rowID] {
                        // The context holds the row; its value is not loaded, or it moved
                        // to another value in memory (then this key is free for a new object).
                        guard registered.unloaded.contains(unique.index), registered.state == .persisted else {
                            continue
                        }
                        let present = try update(
                            registered, foundBy: nil, uniqueValues, keys, of: state, from: container, tape: tape,
                            capturing: capturing, in: context)
                        return (registered, present)
                    }
                    if context.policyInEffect.kind == .fail {
                        throw UniqueResolver.conflict(
                            entity, unique, key, "is already stored and the merge policy is .fail")
                    }
                    let (present, values) = try adoptStoredRow(
                        rowID, as: object, matchedBy: unique, key: key, at: index, decoded: changed, from: container,
                        tape: tape, state: state, capturing: capturing)
                    if capturing { capturedAttributes = values.map { DecodedAttributes(uniqueValues, keys, $0) } }
                    return (object, present)
                }
                var values: [(AttributeDescription, Any)] = []
                for attribute in entity.nonUniqueAttributes {
                    guard let value = try requiredOrIncomingValue(of: attribute, from: container, tape: tape) else {
                        continue
                    }
                    object.setValue(value, inSlot: attribute.index)
                    changed.insert(attribute.index)
                    if capturing { values.append((attribute, value)) }
                }
                for attribute in entity.uniqueAttributes
                where !attribute.hasDefault && !changed.contains(attribute.index) {
                    _ = try decode(attribute, from: container, tape: tape)  // throws "key not found"
                }
                object.changedAttributes = changed
                context.register(object, in: state)
                // The lookups above missed (and indexed anything pending), so the keys are free.
                for (index, key) in keys { state.setEntryIfFree(object, index, key) }
                if capturing { capturedAttributes = DecodedAttributes(uniqueValues, keys, values) }
                return (object, changed)
            }
        }
    }

    /// Empties the arrays one object's unique values were decoded into and keeps them for the
    /// next (`spareUniqueValues`); not if the object's decoded values were kept with them.
    @inline(__always)
    private func keepSpares(
        _ uniqueValues: inout [(AttributeDescription, Any)], _ keys: inout [(index: Int, key: StoredValue)],
        unlessKept kept: Bool
    ) {
        guard !kept else { return }
        Self.empty(&uniqueValues)
        Self.empty(&keys)
        (spareUniqueValues, spareKeys) = (uniqueValues, keys)
    }

    /// Removes an array's elements, keeping its room: one at a time from the end, since these
    /// arrays hold one or two, and `removeAll(keepingCapacity:)` goes through
    /// `replaceSubrange` (200 instructions an array, the import under callgrind).
    @inline(__always)
    private static func empty<Element>(_ array: inout [Element]) {
        while !array.isEmpty { array.removeLast() }
    }

    /// Makes `object`, a blank holding the decoded unique values, the object of stored row
    /// `rowID`, found by `unique`: under `.incomingWins` it takes the other values the JSON
    /// has as changes; the rest is loaded from the row when read. Answers the attributes the
    /// JSON gave values, and those values when they were decoded (not under the other policies).
    private func adoptStoredRow(
        _ rowID: Int64, as object: ManagedObject, matchedBy unique: AttributeDescription, key: StoredValue,
        at matchedIndex: Int, decoded: AttributeSet, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?, state: EntityState, capturing: Bool
    ) throws -> (AttributeSet, [(AttributeDescription, Any)]?) {
        try withContext { context in
            var changed = decoded
            var values: [(AttributeDescription, Any)]?
            if context.policyInEffect.kind == .incomingWins {
                if capturing { values = [] }
                for attribute in state.entity.nonUniqueAttributes {
                    guard let value = try presentValue(of: attribute, from: container, tape: tape) else { continue }
                    object.setValue(value, inSlot: attribute.index)
                    changed.insert(attribute.index)
                    values?.append((attribute, value))
                }
            } else {
                changed = AttributeSet()
            }
            context.resolver.adoptRow(
                rowID, as: object, matchedBy: unique, key: key, at: matchedIndex, changing: changed, in: state)
            return (changed, values)
        }
    }

    /// Applies decoded values to an object the context already has: the unique values, then
    /// the others the JSON gave (`presentValues`), all decoded before any is applied, so a
    /// failure leaves the object as it was. Values equal to the current ones are compared
    /// with the row by the save, so re-importing the same payload writes nothing unless the
    /// row moved on meanwhile. Answers the attributes the JSON gave values (none unless
    /// `.incomingWins`, under which nothing is applied).
    ///
    /// `foundBy` is the unique attribute whose current value the object was found by (the
    /// index compared it as the store would): it holds the JSON's value, so it is not compared
    /// again. A nested author named by a thousand essays is updated a thousand times.
    private func apply(
        _ uniqueValues: [(AttributeDescription, Any)], _ values: [(AttributeDescription, Any)],
        to object: ManagedObject, foundBy: AttributeDescription?, in context: ManagedObjectContext
    ) -> AttributeSet {
        guard context.policyInEffect.kind == .incomingWins else { return AttributeSet() }
        var present = AttributeSet()
        for (attribute, value) in uniqueValues where attribute !== foundBy {
            apply(value, of: attribute, to: object, in: context)
        }
        for (attribute, _) in uniqueValues { present.insert(attribute.index) }
        for (attribute, value) in values {
            apply(value, of: attribute, to: object, in: context)
            present.insert(attribute.index)
        }
        return present
    }

    @inline(__always)
    private func apply(
        _ value: Any, of attribute: AttributeDescription, to object: ManagedObject, in context: ManagedObjectContext
    ) {
        if object.holds(value, for: attribute) {
            // The row is compared inside the save's transaction (see `restate`); not a
            // unique value, which the object was found by: written again with a row
            // that changes, it would only make SQLite rewrite its index entry.
            if !attribute.isUnique { object.restate(attribute, in: context) }
        } else {
            object.setValue(value, of: attribute, knownToDiffer: true)
        }
    }

    /// Decodes the other values the JSON gives an object the context has, found by its unique
    /// values, and applies them all (`apply`). The values' array is kept for the next object
    /// (`spareValues`), unless they are kept with the decoded attributes (`capturing`).
    private func update(
        _ object: ManagedObject, foundBy: AttributeDescription?, _ uniqueValues: [(AttributeDescription, Any)],
        _ keys: [(index: Int, key: StoredValue)], of state: EntityState,
        from container: KeyedDecodingContainer<AttributeKey>, tape: TapeKeyedContainer<AttributeKey>?,
        capturing: Bool, in context: ManagedObjectContext
    ) throws -> AttributeSet {
        var values = spareValues
        spareValues = []
        try presentValues(into: &values, of: state, from: container, tape: tape)
        let present = apply(uniqueValues, values, to: object, foundBy: foundBy, in: context)
        if capturing {
            capturedAttributes = DecodedAttributes(uniqueValues, keys, values)
        } else {
            Self.empty(&values)
            spareValues = values
        }
        return present
    }

    /// The values the JSON gives the attributes that are not unique, where it gives one
    /// (`presentValue`), appended to `values`.
    private func presentValues(
        into values: inout [(AttributeDescription, Any)], of state: EntityState,
        from container: KeyedDecodingContainer<AttributeKey>, tape: TapeKeyedContainer<AttributeKey>?
    ) throws {
        values.reserveCapacity(state.entity.nonUniqueAttributes.count)
        for attribute in state.entity.nonUniqueAttributes {
            if let value = try presentValue(of: attribute, from: container, tape: tape) {
                values.append((attribute, value))
            }
        }
    }

    /// The attribute's value, or the error of a missing key (or object on its key path).
    ///
    /// An attribute without a key path, the common case, is decoded from `container` as it
    /// is: copying the container and handling a path in the same function cost 140
    /// instructions an attribute (stash-bench import under callgrind).
    private func decode(
        _ attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any {
        if let path = attribute.keyPath {
            let nested = try innermostContainer(of: attribute, path, in: container)
            return try decodeLastKey(of: attribute, in: nested, boxedAs: nested)
        }
        if let value = try lastKeyOnTape(of: attribute, from: container, tape) { return value }
        return try decodeLastKey(of: attribute, in: container, boxedAs: container)
    }

    /// `decodeLastKey` on `tape`, if there is one, read in place (see `borrowed`).
    @inline(__always)
    private func lastKeyOnTape(
        of attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        _ tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any? {
        try tape?.borrowed { tape -> Any in try decodeLastKey(of: attribute, in: tape, boxedAs: container) }
    }

    /// The attribute's value under its own key, or the key's `.convertFromSnakeCase` form
    /// when only that is there: read from `source`, `container` itself or the reader's own
    /// container that it boxes (its errors name `container`'s path).
    @inline(__always)
    private func decodeLastKey<Source: AttributeValueSource>(
        of attribute: AttributeDescription, in source: Source, boxedAs container: KeyedDecodingContainer<AttributeKey>
    ) throws -> Any {
        if let converted = attribute.convertedKey, !source.contains(attribute.codingKey), source.contains(converted) {
            return try decodeValue(of: attribute, in: source, boxedAs: container, at: converted)
        }
        return try decodeValue(of: attribute, in: source, boxedAs: container, at: attribute.codingKey)
    }

    private func decodeValue<Source: AttributeValueSource>(
        of attribute: AttributeDescription, in source: Source, boxedAs container: KeyedDecodingContainer<AttributeKey>,
        at key: AttributeKey
    ) throws -> Any {
        do {
            return try source.value(of: attribute.codec, forKey: key)
        } catch {
            throw StashError.decodingAttribute(attribute, failedWith: error, in: container, at: key)
        }
    }

    /// The object holding a key-path attribute's last key; an object absent or null on the
    /// way is an error, as a missing key is.
    @inline(never)
    private func innermostContainer(
        of attribute: AttributeDescription, _ path: [KeyStep], in container: KeyedDecodingContainer<AttributeKey>
    ) throws -> KeyedDecodingContainer<AttributeKey> {
        switch try place(of: attribute, path, in: container) {
        case .container(let nested):
            return nested
        case .absent(let key, let outer):
            let missing = DecodingError.Context(codingPath: outer.codingPath, debugDescription: "")
            throw StashError.decodingAttribute(
                attribute, failedWith: DecodingError.keyNotFound(key, missing), in: outer, at: key)
        case .null(let key, let outer):
            throw StashError(
                .decodingFailed, "expected an object holding \"\(attribute.codingKey.stringValue)\", found null",
                attribute: attribute.name, codingPath: CodingPathText.format(outer.codingPath + [key]))
        }
    }

    /// A required attribute's value (a missing key throws "key not found", naming it), or
    /// an optional or defaulted one's as `incomingValue` gives it. Required attributes take
    /// JSONDecoder's plain `decode`, one lookup.
    private func requiredOrIncomingValue(
        of attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any? {
        attribute.hasDefault
            ? try incomingValue(of: attribute, from: container, tape: tape)
            : try decode(attribute, from: container, tape: tape)
    }

    /// The value the JSON gives the attribute, as `incomingValue` finds it, for an object whose
    /// keys are expected to be there: a required attribute is decoded at once (one lookup) and
    /// only an error saying the key is missing makes it look for the key's other form.
    private func presentValue(
        of attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any? {
        guard !attribute.hasDefault, attribute.keyPath == nil else {
            return try incomingValue(of: attribute, from: container, tape: tape)
        }
        do {
            if let value = try tape?.borrowed({ tape -> Any in
                try attribute.codec.decode(fromTape: tape, forKey: attribute.codingKey)
            }) {
                return value
            }
            return try attribute.codec.decode(from: container, forKey: attribute.codingKey)
        } catch DecodingError.keyNotFound, DecodingError.valueNotFound {
            return try incomingValue(of: attribute, from: container, tape: tape)
        } catch {
            throw StashError.decodingAttribute(attribute, failedWith: error, in: container, at: attribute.codingKey)
        }
    }

    /// The value the JSON gives the attribute, or `nil` to leave it as it is: the key is
    /// absent, or null for a non-optional attribute (which then keeps its default or its
    /// value). Asks `contains` first, then decodes: JSONDecoder's `decodeIfPresent` makes
    /// three lookups where this makes two, and an absent key costs one.
    private func incomingValue(
        of attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any? {
        if let path = attribute.keyPath { return try incomingValue(of: attribute, path, from: container) }
        if let value = try incomingOnTape(of: attribute, from: container, tape) { return value }
        return try incomingLastKey(of: attribute, in: container, boxedAs: container)
    }

    /// `incomingLastKey` on `tape`, read in place (see `borrowed`): `nil` without a tape, and
    /// `.some(nil)` for a key the tape has no value under, which is not looked up again.
    @inline(__always)
    private func incomingOnTape(
        of attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>,
        _ tape: TapeKeyedContainer<AttributeKey>?
    ) throws -> Any?? {
        try tape?.borrowed { tape -> Any?? in .some(try incomingLastKey(of: attribute, in: tape, boxedAs: container)) }
    }

    /// `incomingValue` for an attribute inside nested objects: an object absent on the way
    /// leaves the value, a null one reads as a null would.
    @inline(never)
    private func incomingValue(
        of attribute: AttributeDescription, _ path: [KeyStep], from container: KeyedDecodingContainer<AttributeKey>
    ) throws -> Any? {
        switch try place(of: attribute, path, in: container) {
        case .container(let nested): return try incomingLastKey(of: attribute, in: nested, boxedAs: nested)
        case .absent: return nil
        case .null: return attribute.isOptional ? attribute.codec.nilValue : nil
        }
    }

    /// `incomingValue` under the attribute's last key, in the object that holds it: read from
    /// `source`, `container` itself or the reader's own container that it boxes (its errors
    /// name `container`'s path).
    @inline(__always)
    private func incomingLastKey<Source: AttributeValueSource>(
        of attribute: AttributeDescription, in source: Source, boxedAs container: KeyedDecodingContainer<AttributeKey>
    ) throws -> Any? {
        var key = attribute.codingKey
        if !source.contains(key) {
            guard let converted = attribute.convertedKey, source.contains(converted) else { return nil }
            key = converted
        }
        do {
            return try source.value(of: attribute.codec, forKey: key)
        } catch {
            if !attribute.isOptional, error is DecodingError, (try? source.decodeNil(forKey: key)) == true {
                return nil
            }
            throw StashError.decodingAttribute(attribute, failedWith: error, in: container, at: key)
        }
    }

    /// Where the last key of a key path (`author.name`) is looked up: in the innermost
    /// object's container; or an object on the way is absent (the value is left as it is)
    /// or null (the value reads as a null would: nil for an optional attribute).
    private enum KeyPlace {
        case container(KeyedDecodingContainer<AttributeKey>)
        case absent(AttributeKey, in: KeyedDecodingContainer<AttributeKey>)
        case null(AttributeKey, in: KeyedDecodingContainer<AttributeKey>)
    }

    /// Goes through the nested objects of `path`; each key is tried as declared, then in
    /// its `.convertFromSnakeCase` form. Something else than an object on the way is an error.
    private func place(
        of attribute: AttributeDescription, _ path: [KeyStep], in container: KeyedDecodingContainer<AttributeKey>
    ) throws -> KeyPlace {
        var current = container
        for step in path {
            var key = step.key
            if !current.contains(key) {
                guard let converted = step.converted, current.contains(converted) else {
                    return .absent(step.key, in: current)
                }
                key = converted
            }
            do {
                if try current.decodeNil(forKey: key) { return .null(key, in: current) }
                current = try current.nestedContainer(keyedBy: AttributeKey.self, forKey: key)
            } catch {
                throw StashError.decodingAttribute(attribute, failedWith: error, in: current, at: key)
            }
        }
        return .container(current)
    }

    /// Names the entity (and the coding path) in any error thrown while decoding it.
    func withErrorContext<Result>(
        _ entity: EntityDescription, _ decoder: any Decoder, _ body: () throws -> Result
    ) throws -> Result {
        try withErrorContext(entity, codingPath: { decoder.codingPath }, body)
    }

    /// The same, with the coding path asked for only if something fails.
    func withErrorContext<Result>(
        _ entity: EntityDescription, codingPath: () -> [any CodingKey], _ body: () throws -> Result
    ) throws -> Result {
        do {
            return try body()
        } catch var error as StashError {
            error.entity = error.entity ?? entity.name
            if error.codingPath.isEmpty { error.codingPath = CodingPathText.format(codingPath()) }
            throw error
        } catch let error as DecodingError {
            var wrapped = StashError(decoding: error, attribute: nil)
            wrapped.entity = entity.name
            throw wrapped
        }
    }

    /// A child inserted while its parent's decode runs: the hand-written `init(from:)` calls
    /// `init(context:)` and never sees the parent, so the child takes it here, before any
    /// unique value is set or matched, as the default decoding gives it before matching. A
    /// to-one the object already has (set before `insert`) is left as it is.
    func takeDecodingParent(_ object: ManagedObject, in state: EntityState) {
        guard let scope = parent, scope.entity === state.entity, let slot = scope.relationship.slot,
            case .none = RelationshipTarget(of: object, atSlot: slot)
        else { return }
        context.graph.setTarget(scope.parent, of: scope.relationship, in: object)
    }
}
