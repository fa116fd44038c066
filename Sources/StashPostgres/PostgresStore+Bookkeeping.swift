import Stash

/// Stash's own records (`_stash_…`: key, value) in tables made on first write, as the
/// SQLite store keeps them: StashREST's conditional GET validators, among others.
extension PostgresStore: BookkeepingStore {
    /// `SELECT "key", "value" FROM "_stash_http_validators" WHERE "key" = ANY($1::text[])`.
    func bookkeepingValues(in table: BookkeepingTable, forKeys keys: [String]) throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        return try pool.withConnection { connection in
            let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [.text(quoted(table.name))])
            guard exists.text(0, 0) == "t" else { return [:] }
            let rows = try connection.execute(
                "SELECT \"key\", \"value\" FROM \(quoted(table.name)) WHERE \"key\" = ANY($1::text[])",
                [.text(QueryRenderer.arrayLiteral(keys.map { .text($0) }))])
            var values: [String: String] = [:]
            for row in 0..<rows.rowCount { values[rows.text(row, 0)] = rows.text(row, 1) }
            return values
        }
    }

    /// One transaction that takes the writer lock as a save does (and so moves the change
    /// token by one), makes the table if need be, and upserts or deletes each key.
    func setBookkeepingValues(in table: BookkeepingTable, _ values: [String: String?]) throws -> CommitTokens {
        try refuseInsideTransaction("writing Stash's bookkeeping")
        return try pool.withConnection { connection in
            try connection.execute("BEGIN")
            do {
                let before =
                    try connection.execute(
                        "UPDATE \"_stash_commits\" SET \"count\" = \"count\" + 1 RETURNING \"count\" - 1"
                    ).integer(0, 0)
                try connection.execute(
                    "CREATE TABLE IF NOT EXISTS \(quoted(table.name)) (\"key\" text COLLATE \"C\" PRIMARY KEY, "
                        + "\"value\" text NOT NULL)")
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    if let value {
                        try connection.execute(
                            "INSERT INTO \(quoted(table.name)) (\"key\", \"value\") VALUES ($1, $2) "
                                + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
                            [.text(key), .text(value)])
                    } else {
                        try connection.execute(
                            "DELETE FROM \(quoted(table.name)) WHERE \"key\" = $1", [.text(key)])
                    }
                }
                try connection.execute("COMMIT")
                // The count's row stayed locked until the commit, as in a save.
                return CommitTokens(beforeCommit: before, afterCommit: before + 1)
            } catch {
                if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }
}
