import Foundation

extension ObjectDecoder {
    /// Decodes the relationships of a decoded object: each related object arrives nested
    /// (`"author": {"id": 7, …}`, decoded into this context and upserted by its unique
    /// value, as any object is) or as a reference to its unique value (`"author": 7`,
    /// `"authorId": 7`, `"author_id": 7`; `"tagIds": [1, 2]` for a to-many). A reference to
    /// an object neither the context nor the store has makes a placeholder holding only its
    /// unique value: a later payload fills it in, and a save while it lacks a required value
    /// fails naming it.
    ///
    /// `null` clears a to-one relationship and empties a to-many one that replaces
    /// (`ListDecoding.replace`); a to-many one that merges only gains and updates members.
    /// An absent key leaves it as it is. Under `.storedWins` and `.fail`, an object that was already there keeps its
    /// relationships, as it keeps its attributes.
    ///
    /// `decoded` holds, by slot, to-one targets already decoded (`decodeTargets(in:of:from:)`).
    /// `ownKeysFirst`: the container is JSONDecoder's, whose missing keys read as `null`, so a
    /// to-one's own key may be taken without asking (`ownKeyTarget`). Answers the slots of the
    /// to-one relationships it set.
    func decodeRelationships(
        of object: ManagedObject, in state: EntityState, from container: KeyedDecodingContainer<AttributeKey>,
        tape: TapeKeyedContainer<AttributeKey>? = nil, decoded: [Int: ManagedObject?] = [:], ownKeysFirst: Bool = false
    ) throws -> AttributeSet {
        try withContext { context in
            let isNew = object.state == .inserted
            guard isNew || context.policyInEffect.kind == .incomingWins else { return AttributeSet() }
            var set = AttributeSet()
            for relationship in state.entity.relationships {
                if let slot = relationship.slot, let target = decoded[slot] {
                    context.graph.setTarget(target, of: relationship, in: object)
                    set.insert(slot)
                    continue
                }
                if let tape, !relationship.isToMany {
                    try naming(relationship) {
                        guard let (index, key, isReference) = Self.node(of: relationship, in: tape) else { return }
                        if let slot = relationship.slot { set.insert(slot) }
                        let target = try target(
                            of: relationship, at: index, forKey: key, reference: isReference, in: tape)
                        context.graph.setTarget(target, of: relationship, in: object)
                    }
                    continue
                }
                try naming(relationship) {
                    if ownKeysFirst, !relationship.isToMany {
                        switch try ownKeyTarget(of: relationship, in: container) {
                        case .elsewhere: break
                        case .target(let target):
                            if let slot = relationship.slot { set.insert(slot) }
                            context.graph.setTarget(target, of: relationship, in: object)
                            return
                        }
                    }
                    guard let (key, isReference) = Self.key(of: relationship, in: container) else { return }
                    if !relationship.isToMany { relationship.noteValue(under: key) }
                    if let slot = relationship.slot { set.insert(slot) }
                    if relationship.isToMany {
                        var targets = try decodeTargets(
                            of: relationship, forKey: key, reference: isReference, in: container)
                        if let inverse = try relationship.inverse(), inverse.slot != nil {
                            targets = try context.entering {
                                try context.resolver.resolveNested(targets, in: object, through: inverse)
                            }
                        }
                        if relationship.decoding == .merge {
                            mergeObjects(targets, into: relationship, of: object)
                        } else {
                            context.graph.setObjects(targets, of: relationship, in: object)
                            context.graph.markReplaced(relationship, of: object)
                        }
                    } else {
                        let target = try decodeTarget(
                            of: relationship, forKey: key, reference: isReference, in: container)
                        context.graph.setTarget(target, of: relationship, in: object)
                    }
                }
            }
            return set
        }
    }

    /// Adds `targets` to `object`'s to-many `relationship` (`ListDecoding.merge`), removing
    /// none. A one-to-many list is joined through each target's to-one, with no read of the
    /// list; a many-to-many one is read and extended.
    private func mergeObjects(
        _ targets: [ManagedObject], into relationship: RelationshipDescription, of object: ManagedObject
    ) {
        withContext { context in
            guard !targets.isEmpty, case .toMany(let index) = relationship.kind else { return }
            if let inverse = try? relationship.inverse(), inverse.slot != nil {
                for target in targets { context.graph.setTarget(object, of: inverse, in: target) }
                return
            }
            let current = context.graph.relatedObjects(of: object, toMany: index)
            let present = Set(current.map(ObjectIdentifier.init))
            let added = targets.filter { !present.contains(ObjectIdentifier($0)) }
            guard !added.isEmpty else { return }
            context.graph.setObjects(current + added, of: relationship, in: object)
        }
    }

    /// The targets the JSON gives the to-one relationships at `slots`, by slot (nil for
    /// `null`); an absent key has no entry.
    func decodeTargets(
        in slots: Set<Int>, of state: EntityState, from container: KeyedDecodingContainer<AttributeKey>
    ) throws -> [Int: ManagedObject?] {
        var targets: [Int: ManagedObject?] = [:]
        for relationship in state.entity.relationships {
            guard let slot = relationship.slot, slots.contains(slot) else { continue }
            try naming(relationship) {
                guard let (key, isReference) = Self.key(of: relationship, in: container) else { return }
                targets[slot] = .some(
                    try decodeTarget(of: relationship, forKey: key, reference: isReference, in: container))
            }
        }
        return targets
    }

    /// What a to-one's own key gave (`ownKeyTarget`).
    private enum OwnKeyValue {
        /// The target its object or reference names, or `nil` for `null`.
        case target(ManagedObject?)
        /// Not there, or not asked: the caller looks key by key (`key(of:in:)`).
        case elsewhere
    }

    /// A to-one's value under its own key, taken from JSONDecoder's container without asking
    /// `contains` first (820 instructions an essay in the recipe's graph import): JSONDecoder
    /// answers a missing key with a decoder of `null`, so only a `null` is asked about. Not
    /// tried when the last object did not have the key (`ownKeyHoldsValues`), so that a payload
    /// naming its targets by `authorId` pays for no decoder made for nothing.
    private func ownKeyTarget(
        of relationship: RelationshipDescription, in container: KeyedDecodingContainer<AttributeKey>
    ) throws -> OwnKeyValue {
        guard relationship.ownKeyHoldsValues else { return .elsewhere }
        let (key, isReference) = relationship.jsonKeys[0]
        let decoder = try container.superDecoder(forKey: key)
        if try decoder.singleValueContainer().decodeNil() {
            guard container.contains(key) else {
                relationship.noteValue(under: nil)
                return .elsewhere
            }
            return .target(nil)
        }
        return .target(try target(of: relationship, from: decoder, reference: isReference))
    }

    /// The key the JSON gives `relationship` under, if any, and whether it is a key that
    /// holds references (`authorId`): the relationship's own key holds either.
    private static func key(
        of relationship: RelationshipDescription, in container: KeyedDecodingContainer<AttributeKey>
    ) -> (AttributeKey, Bool)? {
        for candidate in relationship.jsonKeys where container.contains(candidate.key) { return candidate }
        return nil
    }

    /// `key(of:in:)` on the reader's own container, with where the value is: each key is
    /// found once, where the boxed container's `contains`, `decodeNil` and `superDecoder`
    /// found it three times and boxed the decoder they made (2.8k instructions an essay of
    /// stash-bench's graph import under callgrind).
    private static func node(of relationship: RelationshipDescription, in tape: TapeKeyedContainer<AttributeKey>)
        -> (Int, AttributeKey, Bool)?
    {
        for (key, isReference) in relationship.jsonKeys {
            if let index = tape.find(key) { return (index, key, isReference) }
        }
        return nil
    }

    /// `decodeTarget` of a value on the reader's tape, found at `index`.
    private func target(
        of relationship: RelationshipDescription, at index: Int, forKey key: AttributeKey, reference: Bool,
        in tape: TapeKeyedContainer<AttributeKey>
    ) throws -> ManagedObject? {
        let document = tape.decoder.document
        if document.node(index).kind == .null { return nil }
        // A nested object the document holds an earlier copy of is applied again without a
        // decoder of its own, made only for an error's coding path: the decoder and its path
        // cost 1.2k instructions an essay of `context.decode`'s graph import (callgrind).
        // Looked for once: a copy not found is decoded (`nestedTarget`) without looking again.
        if !reference, document.keepsNestedObjects, document.node(index).kind == .object {
            if let attributes = document.nestedObjects.attributes(
                of: ObjectIdentifier(relationship.targetType), at: index, in: document),
                let object = try replay(
                    attributes, as: relationship.targetType,
                    codingPath: { tape.decoder(at: index, forKey: key).codingPath })
            {
                return object.resolved
            }
            return try nestedTarget(of: relationship, from: tape.decoder(at: index, forKey: key), replayed: true)
        }
        return try target(of: relationship, onTape: tape.decoder(at: index, forKey: key), reference: reference)
    }

    /// The object a to-one key names: nil for `null`, a nested object, or a reference.
    private func decodeTarget(
        of relationship: RelationshipDescription, forKey key: AttributeKey, reference: Bool,
        in container: KeyedDecodingContainer<AttributeKey>
    ) throws -> ManagedObject? {
        // `null` told by the value's own decoder: `decodeNil(forKey:)` looked the key up once
        // more (650 instructions a nested author, the recipe's graph import under callgrind).
        let decoder = try container.superDecoder(forKey: key)
        if try decoder.singleValueContainer().decodeNil() { return nil }
        return try target(of: relationship, from: decoder, reference: reference)
    }

    /// The objects a to-many key names, in order; `null` is none. A key that holds references
    /// (`bookIds`) holds only unique values, as `writerId` does: an object there is an error.
    private func decodeTargets(
        of relationship: RelationshipDescription, forKey key: AttributeKey, reference: Bool,
        in container: KeyedDecodingContainer<AttributeKey>
    ) throws -> [ManagedObject] {
        if try container.decodeNil(forKey: key) { return [] }
        var elements = try container.nestedUnkeyedContainer(forKey: key)
        var targets: [ManagedObject] = []
        while !elements.isAtEnd {
            if try elements.decodeNil() { continue }
            targets.append(try target(of: relationship, from: elements.superDecoder(), reference: reference))
        }
        return targets
    }

    /// The related object a JSON value gives: an object is decoded as the target's own
    /// `init(from:)` decodes it; anything else is a reference to its unique value.
    private func target(of relationship: RelationshipDescription, from decoder: any Decoder, reference: Bool) throws
        -> ManagedObject
    {
        // The class compared first: a failed cast of JSONDecoder's decoder cost 1.6k
        // instructions a nested object (stash-bench's graph import through the recipe).
        if !reference, type(of: decoder) == TapeDecoder.self, let tape = decoder as? TapeDecoder {
            return try target(of: relationship, onTape: tape, reference: reference)
        }
        return try decodedTarget(of: relationship, from: decoder, reference: reference)
    }

    /// `target` of a value on the reader's tape: a nested object there is what the same JSON
    /// decoded to earlier, or is decoded and kept (`nestedTarget`).
    private func target(of relationship: RelationshipDescription, onTape tape: TapeDecoder, reference: Bool)
        throws -> ManagedObject
    {
        if !reference, tape.document.keepsNestedObjects, tape.document.node(tape.index).kind == .object {
            return try nestedTarget(of: relationship, from: tape)
        }
        return try decodedTarget(of: relationship, from: tape, reference: reference)
    }

    /// A nested object on the reader's tape: what the same JSON decoded to earlier in the
    /// document applied again (`replay`), or else the object decoded, and what it decoded
    /// to kept for the next copy (`NestedObjectMemo`). An author nested in each of 20,000
    /// essays cost 20k instructions an essay decoded each time (stash-bench's graph import
    /// under callgrind).
    ///
    /// `replayed`: the earlier copy was looked for already (and was not there, or named no
    /// object the context has).
    private func nestedTarget(of relationship: RelationshipDescription, from tape: TapeDecoder, replayed: Bool = false)
        throws -> ManagedObject
    {
        let type = ObjectIdentifier(relationship.targetType)
        let document = tape.document
        if !replayed, let attributes = document.nestedObjects.attributes(of: type, at: tape.index, in: document),
            let object = try replay(attributes, as: relationship.targetType, codingPath: { tape.codingPath })
        {
            return object.resolved
        }
        lastNestedAttributes = nil
        capturesNested = true
        defer { capturesNested = false }
        let object = try decodedTarget(of: relationship, from: tape, reference: false)
        if let attributes = lastNestedAttributes {
            lastNestedAttributes = nil
            document.nestedObjects.keep(attributes, of: type, at: tape.index, in: document)
        }
        return object
    }

    /// The related object a JSON value gives, decoded (see `target`).
    private func decodedTarget(of relationship: RelationshipDescription, from decoder: any Decoder, reference: Bool)
        throws -> ManagedObject
    {
        if !reference, let (container, tape) = try? nestedContainers(of: decoder) {
            guard let decodable = relationship.decodableTargetType else {
                throw StashError(
                    .decodingFailed, "\(relationship.targetName) is not Decodable, so it cannot be decoded nested")
            }
            // A `ManagedObject & Decodable` type, so the object needs no cast (`as?` from
            // `any Decodable` was the runtime's general cast, 360 instructions a nested author
            // in the recipe's graph import).
            let object: ManagedObject = try handingOver(container, tape, for: relationship) {
                try decodable.init(from: decoder)
            }
            return object.resolved
        }
        return try referencedObject(of: relationship, from: decoder, onlyByValue: reference)
    }

    /// Runs `body`, which decodes the related object whose keys `container` read, with the
    /// container handed over to Stash's decoding of it, so that JSONDecoder does not read the
    /// object's keys a second time (4.4k instructions a nested author, stash-bench's graph
    /// import under callgrind).
    ///
    /// Taken by the first decode of an object of the target class while it is handed over,
    /// which is that object's: Stash's `init(from:)` decodes nothing before it, and a
    /// hand-written one never reaches `decodeObject` for its own class. No coding paths are
    /// compared: reading them cost more than the container (5.7k instructions).
    private func handingOver<Result>(
        _ container: KeyedDecodingContainer<AttributeKey>, _ tape: TapeKeyedContainer<AttributeKey>?,
        for relationship: RelationshipDescription, _ body: () throws -> Result
    ) rethrows -> Result {
        let (outer, outerTape, outerType) = (handedOverContainer, handedOverTape, handedOverType)
        let targetClass = ObjectIdentifier(relationship.targetType)
        (handedOverContainer, handedOverTape, handedOverType) = (container, tape, targetClass)
        defer { (handedOverContainer, handedOverTape, handedOverType) = (outer, outerTape, outerType) }
        // The reader's nested object finds the reader's context where it is (`carried(by:)`)
        // and would never take a context handed over: another object's decode could.
        guard tape == nil else { return try body() }
        return try withContext { context in
            try ConstructionFrame.current.handingOver(context, for: targetClass, body)
        }
    }

    /// A nested object's container, and the byte-level reader's own that it boxes, if the
    /// decoder is the reader's (see `attributeContainers`).
    private func nestedContainers(of decoder: any Decoder) throws -> (
        KeyedDecodingContainer<AttributeKey>, TapeKeyedContainer<AttributeKey>?
    ) {
        if Swift.type(of: decoder) == TapeDecoder.self, let reader = decoder as? TapeDecoder {
            let tape = try reader.attributeContainer()
            return (KeyedDecodingContainer(tape), tape)
        }
        return (try decoder.container(keyedBy: AttributeKey.self), nil)
    }

    /// The object whose unique value a reference gives: the context's, the store's row's, or
    /// a new placeholder with only that value set. `onlyByValue`: the key holds only the
    /// value (`writerId`), never a nested object, and an error says so.
    private func referencedObject(
        of relationship: RelationshipDescription, from decoder: any Decoder, onlyByValue: Bool
    ) throws -> ManagedObject {
        try withContext { context in
            let state = try context.identity.state(forType: relationship.targetType)
            guard let unique = state.entity.uniqueAttributes.first else {
                throw StashError(
                    .decodingFailed,
                    "a reference to \(relationship.targetName) needs a unique attribute there to find the object by")
            }
            // Said of the JSON value where it stands (not of a stored value, as the codec would).
            let uniqueText = "\(unique.name) (\(unique.codec.typeName))"
            let expected =
                onlyByValue
                ? "expected \(relationship.targetName)'s \(uniqueText)"
                : "expected a \(relationship.targetName) object, or its \(uniqueText)"
            func mismatch(found: String) -> DecodingError {
                .typeMismatch(
                    unique.codec.valueType,
                    .init(codingPath: decoder.codingPath, debugDescription: "\(expected), found \(found)"))
            }
            guard let primitive = try Self.primitive(from: decoder) else {
                throw mismatch(found: Self.kindOfValue(in: decoder))
            }
            let value: Any
            do {
                value = try unique.codec.value(from: primitive)
            } catch let error as StashError where error.code == .invalidValue {
                throw mismatch(found: Self.jsonText(of: primitive))
            }
            let key = try unique.codec.storedValue(for: value)
            if let object = state.lookup(0, key, in: context) { return object }
            if let object = try context.resolver.storedObject(for: key, unique: 0, in: state) { return object }
            let placeholder = state.entity.type.init()
            placeholder.cachedEntity = state.entity
            placeholder.setValue(value, of: unique)
            context.insert(placeholder)
            return placeholder
        }
    }

    /// A number or string as JSON says it, for an error about the JSON value.
    private static func jsonText(of value: StoredValue) -> String {
        switch value {
        case .text(let text): "the string \"\(text)\""
        default: "the number \(value)"
        }
    }

    /// What a value that is no number or string is, for an error about it.
    private static func kindOfValue(in decoder: any Decoder) -> String {
        if let single = try? decoder.singleValueContainer(), let bool = try? single.decode(Bool.self) {
            return "\(bool)"
        }
        if (try? decoder.container(keyedBy: AttributeKey.self)) != nil { return "an object" }
        if (try? decoder.unkeyedContainer()) != nil { return "an array" }
        return "null"
    }

    /// A JSON number or string as a stored value, for a unique value's codec to read; `nil`
    /// for any other kind of value.
    private static func primitive(from decoder: any Decoder) throws -> StoredValue? {
        let single = try decoder.singleValueContainer()
        if let integer = try? single.decode(Int64.self) { return .integer(integer) }
        if let text = try? single.decode(String.self) { return .text(text) }
        if let real = try? single.decode(Double.self) { return .real(real) }
        return nil
    }

    /// Names the relationship in any error `body` throws.
    private func naming(_ relationship: RelationshipDescription, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch var error as StashError {
            error.attribute = error.attribute ?? relationship.name
            throw error
        } catch let error as DecodingError {
            throw StashError(decoding: error, attribute: relationship.name)
        }
    }
}
