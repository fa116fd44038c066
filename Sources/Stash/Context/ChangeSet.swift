/// What one save changed, as the objects' IDs: what `container.changes` delivers, one per
/// save of any context of the container.
///
/// ```swift
/// for await change in container.changes {
///     if change.deleted.contains(selected) { … }
/// }
/// ```
public struct ChangeSet: Sendable, Hashable {
    public let inserted: Set<ObjectID>
    public let updated: Set<ObjectID>
    public let deleted: Set<ObjectID>

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// `true` if the save changed a row of the entity (the model class's name).
    public func touches(entityNamed name: String) -> Bool {
        [inserted, updated, deleted].contains { $0.contains { $0.entityName == name } }
    }
}
