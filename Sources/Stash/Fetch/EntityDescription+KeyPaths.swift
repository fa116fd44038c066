extension EntityDescription {
    /// What a key path of the model names: an attribute (a to-one relationship is one too, a
    /// column) or a to-many relationship.
    enum Member {
        case attribute(AttributeDescription)
        case toMany(RelationshipDescription)
    }

    /// The member a key path names: `\Post.title` is the `title` attribute.
    ///
    /// A key path to an `@Attribute` names a computed property (the wrapper's value), so it
    /// carries no name to read. Instead it is applied once to a probe object, a blank instance
    /// whose wrappers report each read (`ManagedObject.probedSlots`: slots, and to-many
    /// relationships as `-(index + 1)`) and whose unset values read as placeholders of their
    /// types (`AttributeCodec.placeholder`). The key path names an attribute when it reads
    /// that one attribute and returns its value unchanged, of its type; a computed property
    /// such as `title.uppercased()` or `!read` does not. The answer is kept per key path.
    func member(for keyPath: AnyKeyPath) throws -> Member {
        if let slot = keyPathSlots.withLock({ $0.slot(of: keyPath) }) { return member(atSlot: slot) }
        let probe = makeProbe()
        let value = probe[keyPath: keyPath]
        let slots = Array(Set(probe.probedSlots ?? []))
        guard slots.count == 1 else {
            throw StashError(
                .unsupportedQuery,
                "the key path \(keyPath) reads \(slots.count) attributes; a query can name one stored attribute",
                entity: name)
        }
        if slots[0] < 0 {
            keyPathSlots.withLock { $0.learn(keyPath, slots[0]) }
            return member(atSlot: slots[0])
        }
        let attribute = attributes[slots[0]]
        guard Swift.type(of: keyPath).valueType == attribute.codec.valueType, let value,
            let placeholder = attribute.codec.placeholder(),
            let read = try? attribute.codec.storedValue(for: value),
            let expected = try? attribute.codec.storedValue(for: placeholder), read == expected
        else {
            throw StashError(
                .unsupportedQuery,
                "the key path \(keyPath) computes a value from \(attribute.name); a query can name a stored attribute only",
                entity: name, attribute: attribute.name)
        }
        keyPathSlots.withLock { $0.learn(keyPath, slots[0]) }
        return .attribute(attribute)
    }

    /// An object that records which attributes are read (`probedSlots`), each read giving
    /// its type's placeholder: every value unset, not a default.
    func makeProbe() -> ManagedObject {
        let probe = type.init()
        probe.cachedEntity = self
        probe.probedSlots = []
        probe.isObserved = true
        probe.values = ContiguousArray(repeating: nil, count: attributes.count)
        return probe
    }

    /// The to-one relationships a key path goes through and the attribute it ends on:
    /// `\Book.writer?.name` is `writer`, then `Writer.name`; `\Book.title` is `title` alone.
    /// As `member(for:)` does, the last attribute's value must come back unchanged.
    func path(for keyPath: AnyKeyPath) throws -> (through: [RelationshipDescription], attribute: AttributeDescription) {
        if let attribute = try? attribute(for: keyPath) { return ([], attribute) }
        let frame = ConstructionFrame.current
        let outer = frame.relationshipProbes
        frame.relationshipProbes = []
        defer { frame.relationshipProbes = outer }
        let probe = makeProbe()
        let value = probe[keyPath: keyPath]
        let chain = [probe] + (frame.relationshipProbes ?? [])
        var through: [RelationshipDescription] = []
        for object in chain.dropLast() {
            guard let slots = object.probedSlots, slots.count == 1,
                let relationship = object.entity.relationship(atSlot: slots[0])
            else { break }
            through.append(relationship)
        }
        let last = chain[chain.count - 1]
        guard through.count == chain.count - 1, let slots = last.probedSlots, slots.count == 1, slots[0] >= 0 else {
            throw StashError(
                .unsupportedQuery,
                "the key path \(keyPath) does not read one stored attribute through to-one relationships",
                entity: name)
        }
        let attribute = last.entity.attributes[slots[0]]
        // Of the attribute's own type (a count of it is not), then its own value.
        guard !attribute.isRelationship, let value = unwrapped(value), let placeholder = attribute.codec.placeholder(),
            let plain = unwrapped(placeholder), Swift.type(of: value) == Swift.type(of: plain),
            let read = try? attribute.codec.storedValue(for: value),
            let expected = try? attribute.codec.storedValue(for: placeholder), read == expected
        else {
            throw StashError(
                .unsupportedQuery,
                "the key path \(keyPath) computes a value from \(attribute.name); a query can name a stored attribute only",
                entity: last.entity.name, attribute: attribute.name)
        }
        return (through, attribute)
    }

    private func member(atSlot slot: Int) -> Member {
        slot >= 0 ? .attribute(attributes[slot]) : .toMany(toManyRelationships[-slot - 1])
    }

    /// The attribute a key path names (see `member(for:)`).
    func attribute(for keyPath: AnyKeyPath) throws -> AttributeDescription {
        switch try member(for: keyPath) {
        case .attribute(let attribute): return attribute
        case .toMany(let relationship):
            throw StashError(
                .unsupportedQuery, "\(relationship.name) is a to-many relationship, not an attribute", entity: name,
                attribute: relationship.name)
        }
    }

    /// The relationship a key path of the model names (`\Article.author`).
    func relationship(for keyPath: AnyKeyPath) throws -> RelationshipDescription {
        let found: RelationshipDescription?
        switch try? member(for: keyPath) {
        case .attribute(let attribute)?: found = relationship(atSlot: attribute.index)
        case .toMany(let relationship)?: found = relationship
        case nil: found = nil
        }
        guard let found else {
            throw StashError(
                .invalidModel, "the key path \(keyPath) does not name one of its relationships", entity: name)
        }
        return found
    }
}

extension ManagedObject {
    /// The name of the relationship `keyPath` names in this model (`"feed"` for
    /// `\Headline.feed`); the model's error when it names none: what StashREST keeps a
    /// parent's records by. A key path's
    /// description is for debugging only; in a stripped build a wrapper's getter prints as an
    /// address that changes with every launch.
    package static func relationshipName(for keyPath: AnyKeyPath) throws -> String {
        try EntityRegistry.shared.entity(for: self).relationship(for: keyPath).name
    }
}
