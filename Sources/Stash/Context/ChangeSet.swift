/// What one save changed, as the objects' IDs: what `container.changes` delivers, one per
/// save of any context of the container.
///
/// ```swift
/// for await change in container.changes {
///     if change.deleted.contains(selected) { … }
/// }
/// ```
public struct ChangeSet: Sendable, Hashable {
    /// Made when first read (see `ChangeSetIDs`).
    private let ids: ChangeSetIDs

    public var inserted: Set<ObjectID> { ids.sets.inserted }
    public var updated: Set<ObjectID> { ids.sets.updated }
    public var deleted: Set<ObjectID> { ids.sets.deleted }

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        ids = ChangeSetIDs(.init(inserted: inserted, updated: updated, deleted: deleted))
    }

    /// The rows a save changed, as IDs once read.
    init(_ note: SaveNote, entityNames: [String]) {
        ids = ChangeSetIDs(note, entityNames: entityNames)
    }

    public var isEmpty: Bool { ids.isEmpty }

    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.ids === rhs.ids || lhs.ids.sets == rhs.ids.sets
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ids.sets)
    }

    /// `true` if the save changed a row of the entity (the model class's name).
    public func touches(entityNamed name: String) -> Bool {
        [inserted, updated, deleted].contains { $0.contains { $0.entityName == name } }
    }
}
