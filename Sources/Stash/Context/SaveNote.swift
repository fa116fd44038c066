/// What one save of a context changed, by row id per entity: what the container hands the
/// other contexts, which merge it (`ManagedObjectContext.mergeInbox`), and what becomes the
/// public `ChangeSet` of `container.changes`.
struct SaveNote: Sendable {
    /// Per entity, in the container's order.
    var entities: [Entity]

    struct Entity: Sendable {
        var inserted: [Int64] = []
        /// Rows whose values changed (updates, and inserts that turned out to name a stored row).
        var updated: [Int64] = []
        var deleted: [Int64] = []

        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    var isEmpty: Bool { entities.allSatisfy(\.isEmpty) }

    /// The note as object IDs.
    func changeSet(_ entities: [EntityDescription]) -> ChangeSet {
        var inserted = Set<ObjectID>()
        var updated = Set<ObjectID>()
        var deleted = Set<ObjectID>()
        for (entity, changes) in zip(entities, self.entities) {
            inserted.formUnion(changes.inserted.map { ObjectID(entityName: entity.name, rowID: $0, temporaryID: 0) })
            updated.formUnion(changes.updated.map { ObjectID(entityName: entity.name, rowID: $0, temporaryID: 0) })
            deleted.formUnion(changes.deleted.map { ObjectID(entityName: entity.name, rowID: $0, temporaryID: 0) })
        }
        return ChangeSet(inserted: inserted, updated: updated, deleted: deleted)
    }
}
