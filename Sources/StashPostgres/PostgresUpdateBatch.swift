import Stash

/// A save's single-row `UPDATE`s, gathered and sent together in pipeline mode
/// (`PostgresConnection.executePipelined`): one round trip for all of them rather than one
/// each. Each must change its row: one that changes none (deleted since it was loaded)
/// fails the save with `rowMissing`, naming its entity and row.
struct PostgresUpdateBatch {
    private var statements: [(sql: String, parameters: [StoredValue])] = []
    private var targets: [(entity: String, rowID: Int64)] = []

    /// `UPDATE "Post" SET "title" = $1, "read" = $2 WHERE "_pk" = $3`, sent at `send`.
    mutating func update(_ entity: EntitySchema, _ rowID: Int64, _ columns: [Int], _ values: [StoredValue]) {
        guard !columns.isEmpty else { return }
        var sql = "UPDATE \(quoted(entity.name)) SET "
        for (offset, column) in columns.enumerated() {
            if offset > 0 { sql += ", " }
            sql += "\(quoted(entity.columns[column].name)) = $\(offset + 1)"
        }
        sql += " WHERE \"_pk\" = $\(columns.count + 1)"
        statements.append((sql, values + [.integer(rowID)]))
        targets.append((entity.name, rowID))
    }

    /// Sends every update gathered, and empties the batch.
    mutating func send(_ connection: PostgresConnection) throws {
        defer {
            statements = []
            targets = []
        }
        guard !statements.isEmpty else { return }
        let affected = try connection.executePipelined(statements)
        if let missing = zip(targets, affected).first(where: { $0.1 != 1 })?.0 {
            throw StashError(
                .rowMissing, "the row \(missing.rowID) was deleted since this object was loaded; nothing was saved",
                entity: missing.entity)
        }
    }
}
