import Stash

/// `PostgresStore`'s steps of a save on one pooled connection, in the order
/// `StoreChangeSet.write(with:)` takes them.
struct PostgresChangeWriter: ChangeSetWriter {
    let store: PostgresStore
    let connection: PostgresConnection

    func makeLaterWrites() -> PostgresLaterWrites { PostgresLaterWrites() }

    /// `DELETE FROM "Post" WHERE "_pk" IN (SELECT unnest($1::int8[]))`: one statement.
    func deleteRows(of changes: EntityChanges) throws {
        try connection.execute(
            "DELETE FROM \(quoted(changes.entity.name)) WHERE \"_pk\" IN (SELECT unnest($1::int8[]))",
            [.text(QueryRenderer.arrayLiteral(changes.deletes.map { .integer($0) }))])
    }

    func updateRows(
        of changes: EntityChanges, at position: Int, _ result: inout EntitySaveResult,
        _ later: inout PostgresLaterWrites
    ) throws {
        try store.updateRows(of: changes, at: position, &result, &later, connection)
    }

    func insertRows(
        of changes: EntityChanges, at position: Int, into result: inout EntitySaveResult, _ inserted: InsertedRows,
        _ later: inout PostgresLaterWrites
    ) throws {
        try store.insertRows(of: changes, at: position, into: &result, inserted, &later, connection)
    }

    func writeLater(_ later: PostgresLaterWrites, _ changes: StoreChangeSet, _ result: SaveResult) throws {
        try later.write(changes, connection)
    }

    func writeJoin(_ write: JoinWrite, _ inserted: InsertedRows) throws -> Bool {
        try store.writeJoin(write, inserted, connection)
    }

    func writePositions(_ writes: [PositionWrite], _ result: SaveResult) throws {
        try store.writePositions(writes, result, connection)
    }
}
