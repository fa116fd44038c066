/// One store's steps of writing a change set inside its transaction. The order of the
/// steps is the part both stores must agree on, so it lives once, in `StoreChangeSet.write`:
/// deletes first (across every entity, freeing unique values), then updates, then inserts
/// in `insertOrder` (an entity after the ones its new rows point at), then the values that
/// named rows written later, the many-to-many lists and the one-to-many list places.
package protocol ChangeSetWriter {
    /// Values that named rows not written yet (`UnwrittenRow`), gathered while rows are
    /// written and set by `writeLater` once every insert is done.
    associatedtype LaterWrites

    func makeLaterWrites() -> LaterWrites
    func deleteRows(of changes: EntityChanges) throws
    func updateRows(
        of changes: EntityChanges, at position: Int, _ result: inout EntitySaveResult, _ later: inout LaterWrites)
        throws
    func insertRows(
        of changes: EntityChanges, at position: Int, into result: inout EntitySaveResult, _ inserted: InsertedRows,
        _ later: inout LaterWrites) throws
    func writeLater(_ later: LaterWrites, _ changes: StoreChangeSet, _ result: SaveResult) throws
    /// Answers whether the stored list is not the one written (see `JoinWrite`).
    func writeJoin(_ write: JoinWrite, _ inserted: InsertedRows) throws -> Bool
    func writePositions(_ writes: [PositionWrite], _ result: SaveResult) throws
}

extension StoreChangeSet {
    /// Writes the change set through `writer`, in the order every store takes (see
    /// `ChangeSetWriter`); the caller owns the transaction around it.
    package func write(with writer: some ChangeSetWriter) throws -> SaveResult {
        for entity in entities where !entity.deletes.isEmpty {
            try inPlace(entity.entity.name) { try writer.deleteRows(of: entity) }
        }
        var later = writer.makeLaterWrites()
        var result = SaveResult()
        for (position, entity) in entities.enumerated() {
            var entityResult = EntitySaveResult()
            if !entity.updates.isEmpty {
                try inPlace(entity.entity.name) {
                    try writer.updateRows(of: entity, at: position, &entityResult, &later)
                }
            }
            result.entities.append(entityResult)
        }
        for position in insertOrder.isEmpty ? Array(entities.indices) : insertOrder {
            let entity = entities[position]
            try inPlace(entity.entity.name) {
                try writer.insertRows(
                    of: entity, at: position, into: &result.entities[position], insertedRows, &later)
            }
        }
        try writer.writeLater(later, self, result)
        for (offset, join) in joinWrites.enumerated() {
            let revised = try inPlace(join.table.name) { try writer.writeJoin(join, insertedRows) }
            if revised { result.revisedJoins.insert(offset) }
        }
        try writer.writePositions(positionWrites, result)
        return result
    }
}
