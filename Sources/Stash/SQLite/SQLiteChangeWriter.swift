/// `SQLiteStore`'s steps of a save on its writer connection, in the order
/// `StoreChangeSet.write(with:)` takes them.
struct SQLiteChangeWriter: ChangeSetWriter {
    let store: SQLiteStore
    let connection: SQLiteConnection

    func makeLaterWrites() -> LaterWrites { LaterWrites() }

    func deleteRows(of changes: EntityChanges) throws {
        try store.deleteRows(of: changes, connection)
    }

    func updateRows(
        of changes: EntityChanges, at position: Int, _ result: inout EntitySaveResult, _ later: inout LaterWrites
    ) throws {
        try store.updateRows(of: changes, at: position, &result, &later, connection)
    }

    func insertRows(
        of changes: EntityChanges, at position: Int, into result: inout EntitySaveResult, _ inserted: InsertedRows,
        _ later: inout LaterWrites
    ) throws {
        try store.insertRows(of: changes, at: position, into: &result, inserted, &later, connection)
    }

    func writeLater(_ later: LaterWrites, _ changes: StoreChangeSet, _ result: SaveResult) throws {
        try later.write(changes, result, in: store, connection)
    }

    func writeJoin(_ write: JoinWrite, _ inserted: InsertedRows) throws -> Bool {
        try store.writeJoin(write, inserted, connection)
    }

    func writePositions(_ writes: [PositionWrite], _ result: SaveResult) throws {
        try store.writePositions(writes, result, connection)
    }
}
