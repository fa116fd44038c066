/// The rows of one entity that a commit inserted, updated and deleted, by row id: what a
/// `SaveNote` holds per entity, and what a store's change notification carries to other
/// processes (see `CommitNotice`).
package struct RowChanges: Sendable, Equatable {
    package var inserted: [Int64] = []
    /// Rows whose values changed (updates, and inserts that turned out to name a stored row).
    package var updated: [Int64] = []
    package var deleted: [Int64] = []

    package init(inserted: [Int64] = [], updated: [Int64] = [], deleted: [Int64] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// One entity's changes over several commits, in order: each row once, as the last left
    /// it (a row deleted at the end is deleted; one inserted and then changed is inserted).
    package init(folding changes: [RowChanges]) {
        // One commit's changes list each row once already (`SavePlanner.note`,
        // `committedRows`): as they are.
        if changes.count == 1 {
            self = changes[0]
            return
        }
        var inserted = Set<Int64>()
        var updated = Set<Int64>()
        var deleted = Set<Int64>()
        for change in changes {
            deleted.formUnion(change.deleted)
            inserted.subtract(change.deleted)
            updated.subtract(change.deleted)
            inserted.formUnion(change.inserted)
            deleted.subtract(change.inserted)
            for rowID in change.updated where !inserted.contains(rowID) { updated.insert(rowID) }
        }
        self.init(inserted: inserted.sorted(), updated: updated.sorted(), deleted: deleted.sorted())
    }
}

extension StoreChangeSet {
    /// What the save changed, per entity (in change set order, by name), once the store
    /// applied it: what a store tells other processes of in the save's transaction. The
    /// same rows a context's `SaveNote` lists: deletes; updates that wrote something;
    /// inserts as new rows, or as updates where they matched a stored row; and the owners
    /// of the many-to-many lists written, as updated.
    package func committedRows(_ result: SaveResult) throws -> [(entity: String, rows: RowChanges)] {
        var answer = entities.map { (entity: $0.entity.name, rows: RowChanges(deleted: $0.deletes)) }
        for (position, changes) in entities.enumerated() where position < result.entities.count {
            let written = result.entities[position]
            for (row, rowID) in changes.updates.rowIDs.enumerated() where !written.unwrittenUpdates.contains(row) {
                answer[position].rows.updated.append(rowID)
            }
            for (offset, rowID) in written.insertedRowIDs.enumerated() {
                if offset < written.matches.count, written.matches[offset] != nil {
                    answer[position].rows.updated.append(rowID)
                } else {
                    answer[position].rows.inserted.append(rowID)
                }
            }
        }
        var listed: [Int: Set<Int64>] = [:]
        for write in joinWrites {
            guard let ownerEntity = write.table.columns.first?.references,
                let position = answer.firstIndex(where: { $0.entity == ownerEntity })
            else { continue }
            let owner = try write.owner()
            let rows = answer[position].rows
            if listed[position] == nil { listed[position] = Set(rows.inserted).union(rows.updated) }
            if listed[position]!.insert(owner).inserted { answer[position].rows.updated.append(owner) }
        }
        // Each row once, as in the note: two new objects may match one stored row (through
        // different unique attributes).
        for position in answer.indices { answer[position].rows.updated = answer[position].rows.updated.ascendingOnce() }
        return answer
    }
}
