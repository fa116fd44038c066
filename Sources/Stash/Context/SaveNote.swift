/// What one save of a context changed, by row id per entity: what the container hands the
/// other contexts, which merge it (`Merger.mergeInbox`), and what becomes the
/// public `ChangeSet` of `container.changes`.
struct SaveNote: Sendable {
    /// Per entity, in the container's order.
    var entities: [Entity]

    typealias Entity = RowChanges

    /// Positions of entities changed in rows the note does not list: another process's save
    /// too large for one notification, or every entity after notifications may have been
    /// missed (see `CommitNotice`). Contexts read their objects of these entities again.
    var unlisted = Set<Int>()

    var isEmpty: Bool { unlisted.isEmpty && entities.allSatisfy(\.isEmpty) }

    /// The note as object IDs, made when first read.
    func changeSet(_ entities: [EntityDescription]) -> ChangeSet {
        ChangeSet(self, entityNames: entities.map(\.name))
    }
}

extension SaveNote {
    /// One note for several saves, in order: each row once, as its last save left it (a row
    /// deleted at the end is deleted; one inserted and then changed is inserted).
    init(folding notes: [SaveNote]) {
        let count = notes.map(\.entities.count).max() ?? 0
        var folded = [Entity](repeating: Entity(), count: count)
        for position in 0..<count {
            folded[position] = Entity(
                folding: notes.compactMap { position < $0.entities.count ? $0.entities[position] : nil })
        }
        entities = folded
        unlisted = notes.reduce(into: Set<Int>()) { $0.formUnion($1.unlisted) }
    }
}
