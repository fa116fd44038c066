/// The process-wide cache of entity descriptions, one per model class.
///
/// Objects look their class up here when first used, so the schema is derived once
/// per class however many objects are decoded.
final class EntityRegistry: Sendable {
    static let shared = EntityRegistry()

    private let entities = Locked<[ObjectIdentifier: EntityDescription]>([:])

    private func cachedEntity(for type: ManagedObject.Type) -> EntityDescription? {
        entities.withLock { $0[ObjectIdentifier(type)] }
    }

    /// The description of `type`, built on first use.
    func entity(for type: ManagedObject.Type) throws -> EntityDescription {
        if let entity = cachedEntity(for: type) { return entity }
        // Built outside the lock: building makes a blank instance, whose init looks here.
        let entity = try EntityDescription(type: type)
        return entities.withLock { cache in
            if let existing = cache[ObjectIdentifier(type)] { return existing }
            cache[ObjectIdentifier(type)] = entity
            return entity
        }
    }
}
