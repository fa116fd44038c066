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
        var places: [Int64: Int64] = [:]
        var storedOrder: [Int64] = []
        var twice = Set<Int64>()
        if !write.ownerIsNew || insertedRows.wasMatched(owner) {
            let stored = try connection.execute(
                "SELECT \(columns[1]), \(columns[2]) FROM \(table) WHERE \(columns[0]) = $1 ORDER BY \(columns[2]), \"_pk\"",
                [.integer(owner)])
            for index in 0..<stored.rowCount {
                let member = stored.integer(index, 0)
                if places[member] == nil {
                    places[member] = stored.integer(index, 1)
                    storedOrder.append(member)
                } else {
                    twice.insert(member)
                }
            }
        }
        let wanted = Set(related)
        let removed = (write.known ?? Set(storedOrder)).subtracting(wanted)
        var final = related.filter { places[$0] != nil || write.known?.contains($0) != true }
        final += storedOrder.filter { !wanted.contains($0) && !removed.contains($0) }
        for member in removed where places[member] != nil {
            try connection.execute(
                "DELETE FROM \(table) WHERE \(columns[0]) = $1 AND \(columns[1]) = $2",
                [.integer(owner), .integer(member)])
        }
        for (place, member) in final.enumerated() {
            let position = Int64(place)
            if let stored = places[member] {
                if stored != position || twice.contains(member) {
                    try connection.execute(
                        "UPDATE \(table) SET \(columns[2]) = $1 WHERE \(columns[0]) = $2 AND \(columns[1]) = $3 "
                            + "AND \(columns[2]) IS DISTINCT FROM $1",
                        [.integer(position), .integer(owner), .integer(member)])
                }
            } else {
                try connection.execute(
                    "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES ($1, $2, $3)",
                    [.integer(owner), .integer(member), .integer(position)])
            }
        }
        return final != related
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
