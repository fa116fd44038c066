import Stash

/// A save's single-row `UPDATE`s, gathered and sent together in pipeline mode
/// (`PostgresConnection.executePipelined`): one round trip for all of them rather than one
/// each. Each must change its row: one that changes none (deleted since it was loaded)
/// fails the save with `rowMissing`, naming its entity and row.
struct PostgresUpdateBatch {
    private var statements: [(sql: String, parameters: [StoredValue])] = []
    private var targets: [(entity: String, rowID: Int64)] = []
    /// Each statement's text by entity and columns, made once: a re-import changes the same
    /// columns of every row.
    private var texts: [String: [[Int]: String]] = [:]

    /// `UPDATE "Post" SET "title" = $1, "read" = $2 WHERE "_pk" = $3`, sent at `send`.
    mutating func update(_ entity: EntitySchema, _ rowID: Int64, _ columns: [Int], _ values: [StoredValue]) {
        guard !columns.isEmpty else { return }
        let sql = texts[entity.name, default: [:]][columns] ?? Self.text(entity, columns)
        texts[entity.name, default: [:]][columns] = sql
        var parameters = values
        parameters.append(.integer(rowID))
        statements.append((sql, parameters))
        targets.append((entity.name, rowID))
    }

    private static func text(_ entity: EntitySchema, _ columns: [Int]) -> String {
        var sql = "UPDATE \(quoted(entity.name)) SET "
        for (offset, column) in columns.enumerated() {
            if offset > 0 { sql += ", " }
            sql += "\(quoted(entity.columns[column].name)) = $\(offset + 1)"
        }
        return sql + " WHERE \"_pk\" = $\(columns.count + 1)"
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
