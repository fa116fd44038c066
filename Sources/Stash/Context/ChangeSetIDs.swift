/// The object IDs of a `ChangeSet`, made from its save's row ids the first time they are
/// read: most change sets `save()` answers are never read, and making their three sets of
/// IDs cost 2.5k instructions a row (stash-bench's import write under callgrind).
final class ChangeSetIDs: Sendable {
    struct Sets: Hashable, Sendable {
        var inserted = Set<ObjectID>()
        var updated = Set<ObjectID>()
        var deleted = Set<ObjectID>()
    }

    private enum Source {
        case rows(SaveNote, entityNames: [String])
        case made(Sets)
    }

    private let source: Locked<Source>
    /// Known without making the sets.
    let isEmpty: Bool

    init(_ sets: Sets) {
        source = Locked(.made(sets))
        isEmpty = sets.inserted.isEmpty && sets.updated.isEmpty && sets.deleted.isEmpty
    }

    /// The IDs of the rows of `note`, whose entities are, in order, `entityNames`.
    init(_ note: SaveNote, entityNames: [String]) {
        source = Locked(.rows(note, entityNames: entityNames))
        isEmpty = note.entities.allSatisfy(\.isEmpty)
    }

    /// The row ids of one entity's rows, each once (`SavePlanner.note` lists them so), read
    /// from the save's note without making a set of IDs (StashREST asks this of every page it saves) while the sets are not made;
    /// from the sets once they are (IDs of objects without a row, which only sets given by hand
    /// can hold, have none to give).
    func rows(ofEntityNamed name: String) -> RowChanges {
        let source = self.source.withLock { $0 }
        switch source {
        case .rows(let note, let entityNames):
            guard let position = entityNames.firstIndex(of: name), position < note.entities.count else {
                return RowChanges()
            }
            return note.entities[position]
        case .made(let sets):
            func rowIDs(_ ids: Set<ObjectID>) -> [Int64] {
                ids.compactMap { $0.entityName == name ? $0.rowID : nil }.sorted()
            }
            return RowChanges(
                inserted: rowIDs(sets.inserted), updated: rowIDs(sets.updated), deleted: rowIDs(sets.deleted))
        }
    }

    var sets: Sets {
        source.withLock { source in
            switch source {
            case .made(let sets):
                return sets
            case .rows(let note, let names):
                let sets = Self.sets(of: note, entityNames: names)
                source = .made(sets)
                return sets
            }
        }
    }

    private static func sets(of note: SaveNote, entityNames: [String]) -> Sets {
        var sets = Sets()
        for (name, changes) in zip(entityNames, note.entities) {
            sets.inserted.formUnion(changes.inserted.map { ObjectID(entityName: name, rowID: $0, temporaryID: 0) })
            sets.updated.formUnion(changes.updated.map { ObjectID(entityName: name, rowID: $0, temporaryID: 0) })
            sets.deleted.formUnion(changes.deleted.map { ObjectID(entityName: name, rowID: $0, temporaryID: 0) })
        }
        return sets
    }
}
