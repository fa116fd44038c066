extension EntityDescription {
    /// The attribute a key path of the model names: `\Post.title` is the `title` attribute.
    ///
    /// A key path to an `@Attribute` names a computed property (the wrapper's value), so it
    /// carries no name to read. Instead it is applied once to a probe object, a blank instance
    /// whose wrappers report each read (`ManagedObject.probedSlots`) and whose unset values
    /// read as placeholders of their types (`AttributeCodec.placeholder`). The key path names
    /// an attribute when it reads that one attribute and returns its value unchanged, of its
    /// type; a computed property such as `title.uppercased()` or `!read` does not. The answer
    /// is kept per key path.
    func attribute(for keyPath: AnyKeyPath) throws -> AttributeDescription {
        if let slot = keyPathSlots.withLock({ $0[keyPath] }) { return attributes[slot] }
        let probe = type.init()
        probe.cachedEntity = self
        probe.probedSlots = []
        probe.storage.isObserved = true
        // Every value unset: each read gives its type's placeholder, not a default.
        probe.storage.values = ContiguousArray(repeating: nil, count: attributes.count)
        let value = probe[keyPath: keyPath]
        let slots = Array(Set(probe.probedSlots ?? []))
        guard slots.count == 1 else {
            throw StashError(
                .unsupportedQuery,
                "the key path \(keyPath) reads \(slots.count) attributes; a query can name one stored attribute",
                entity: name)
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
        keyPathSlots.withLock { $0[keyPath] = slots[0] }
        return attribute
    }
}

extension EntityDescription {
    /// The relationship a key path of the model names (`\Article.author`), found as
    /// `attribute(for:)` finds attributes: by the probe object's record of what it read.
    func relationship(for keyPath: AnyKeyPath) throws -> RelationshipDescription {
        let probe = type.init()
        probe.cachedEntity = self
        probe.probedSlots = []
        probe.storage.values = ContiguousArray(repeating: nil, count: attributes.count)
        _ = probe[keyPath: keyPath]
        let read = Array(Set(probe.probedSlots ?? []))
        // To-one relationships report their slot, to-many ones -(index + 1).
        let found =
            read.count == 1
            ? (read[0] >= 0 ? relationshipsBySlot[read[0]] : toManyRelationships[-read[0] - 1]) : nil
        guard let found else {
            throw StashError(
                .invalidModel, "the key path \(keyPath) does not name one of its relationships", entity: name)
        }
        return found
    }
}
