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
    /// The entities (model class names) changed in rows the sets above do not list: empty for
    /// every save of this container, and for another process's save whose rows its store's
    /// notification lists (PostgreSQL). Not empty for another process's save too large for one
    /// notification (its entities), or after the connection that hears of other processes
    /// was lost and made again (every entity: saves may have been missed meanwhile). What
    /// you show of these entities should be fetched again; the container's contexts have
    /// read their objects of them again already.
    public let unlistedEntities: Set<String>

    public init(
        inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [],
        unlistedEntities: Set<String> = []
    ) {
        ids = ChangeSetIDs(.init(inserted: inserted, updated: updated, deleted: deleted))
        self.unlistedEntities = unlistedEntities
    }

    /// The rows a save changed, as IDs once read.
    init(_ note: SaveNote, entityNames: [String]) {
        ids = ChangeSetIDs(note, entityNames: entityNames)
        unlistedEntities = Set(note.unlisted.map { entityNames[$0] })
    }

    public var isEmpty: Bool { ids.isEmpty && unlistedEntities.isEmpty }

    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.unlistedEntities == rhs.unlistedEntities && (lhs.ids === rhs.ids || lhs.ids.sets == rhs.ids.sets)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ids.sets)
        hasher.combine(unlistedEntities)
    }

    /// The row ids of the entity's (the model class name's) rows that the save inserted,
    /// updated and deleted, each row once: what `inserted`, `updated` and `deleted` hold of
    /// that entity, without making their IDs (1.35k instructions a row, read by StashREST
    /// for every page it saves; stash-bench's REST import under callgrind).
    package func rows(ofEntityNamed name: String) -> RowChanges {
        ids.rows(ofEntityNamed: name)
    }

    /// `true` if the save changed a row of the entity (the model class's name), or may have
    /// (`unlistedEntities`).
    public func touches(entityNamed name: String) -> Bool {
        unlistedEntities.contains(name)
            || [inserted, updated, deleted].contains { $0.contains { $0.entityName == name } }
    }
}
