import Stash

extension PostgresStore {
    /// One owner's many-to-many list as a change to the rows its context read (see
    /// `JoinWrite`), as `SQLiteStore.writeJoin` does it: the join rows read inside the
    /// transaction, then a `DELETE` per link removed, an `INSERT` per link added and an
    /// `UPDATE` per link whose place changed. Answers whether the stored list is not the
    /// one written.
    func writeJoin(_ write: JoinWrite, _ insertedRows: InsertedRows, _ connection: PostgresConnection) throws
        -> Bool
    {
        let table = quoted(write.table.name)
        let columns = write.table.columns.map { quoted($0.name) }
        let owner = try write.owner()
        let related = try write.related()
        var stored: [(member: Int64, place: Int64)] = []
        if !write.ownerIsNew || insertedRows.wasMatched(owner) {
            let rows = try connection.execute(
                "SELECT \(columns[1]), \(columns[2]) FROM \(table) WHERE \(columns[0]) = $1 ORDER BY \(columns[2]), \"_pk\"",
                [.integer(owner)])
            for index in 0..<rows.rowCount { stored.append((rows.integer(index, 0), rows.integer(index, 1))) }
        }
        let plan = JoinPlan(write, related: related, stored: stored)
        for member in plan.deletes {
            try connection.execute(
                "DELETE FROM \(table) WHERE \(columns[0]) = $1 AND \(columns[1]) = $2",
                [.integer(owner), .integer(member)])
        }
        for (member, place) in plan.inserts {
            try connection.execute(
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES ($1, $2, $3)",
                [.integer(owner), .integer(member), .integer(place)])
        }
        for (member, place) in plan.moves {
            try connection.execute(
                "UPDATE \(table) SET \(columns[2]) = $1 WHERE \(columns[0]) = $2 AND \(columns[1]) = $3 "
                    + "AND \(columns[2]) IS DISTINCT FROM $1",
                [.integer(place), .integer(owner), .integer(member)])
        }
        return plan.differsFromWritten
    }

    /// `UPDATE "Comment" SET "post_position" = $1 WHERE "_pk" = $2 AND "post_position" IS
    /// DISTINCT FROM $1`: a list saved again in the same order writes nothing.
    func writePositions(_ writes: [PositionWrite], _ result: SaveResult, _ connection: PostgresConnection) throws {
        for write in writes {
            let unchanged = write.unlessUnchanged.map { result.entities[$0.entity].unchangedColumns } ?? [:]
            let relationship = write.unlessUnchanged?.column ?? 0
            let column = quoted(write.column)
            try inPlace(write.table.name) {
                for place in try write.places() where unchanged[place.rowID]?.contains(relationship) != true {
                    try connection.execute(
                        "UPDATE \(quoted(write.table.name)) SET \(column) = $1::int8 WHERE \"_pk\" = $2 "
                            + "AND \(column) IS DISTINCT FROM $1::int8",
                        [place.position.map(StoredValue.integer) ?? .null, .integer(place.rowID)])
                }
            }
        }
    }
}
