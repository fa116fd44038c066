import Foundation

/// Stash's own records in tables of their own (`_stash_…`: key, value), made on first write,
/// so that a store never written to by what needs them holds no such table.
extension SQLiteStore: BookkeepingStore {
    func bookkeepingValues(in table: BookkeepingTable, forKeys keys: [String]) throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        return try withReader { connection in
            let exists = try connection.integer(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table.name)])
            guard exists > 0 else { return [:] }
            var values: [String: String] = [:]
            for start in stride(from: 0, to: keys.count, by: filterBatchSize) {
                let batch = keys[start..<min(start + filterBatchSize, keys.count)]
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
                try connection.forEachRow(
                    "SELECT \"key\", \"value\" FROM \(quotedTable(table)) WHERE \"key\" IN (\(marks))",
                    batch.map { .text($0) }
                ) { row in
                    values[row.text(0)] = row.text(1)
                }
            }
            return values
        }
    }

    func setBookkeepingValues(in table: BookkeepingTable, _ values: [String: String?]) throws -> CommitTokens {
        // A file's tokens are a save's (`committing`). An in-memory store's token takes the
        // writer's lock, so it is read outside the transaction; a save of this process in
        // between moves the container's save generation, which a hand-over checks as well.
        try refuseInsideTransaction("writing Stash's bookkeeping")
        let inMemory = path == nil
        let before = inMemory ? try changeToken() : nil
        let (_, tokens) = try withConnection { connection in
            try committing(connection) {
                try connection.execute(
                    "CREATE TABLE IF NOT EXISTS \(quotedTable(table)) (\"key\" TEXT PRIMARY KEY NOT NULL, "
                        + "\"value\" TEXT NOT NULL) WITHOUT ROWID")
                let upsert = try connection.statement(
                    "INSERT INTO \(quotedTable(table)) (\"key\", \"value\") VALUES (?, ?) "
                        + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
                let delete = try connection.statement("DELETE FROM \(quotedTable(table)) WHERE \"key\" = ?")
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    if let value {
                        try upsert.run([.text(key), .text(value)])
                    } else {
                        try delete.run([.text(key)])
                    }
                }
            }
        }
        return inMemory ? CommitTokens(beforeCommit: before, afterCommit: try changeToken()) : tokens
    }

    private func quotedTable(_ table: BookkeepingTable) -> String {
        "\"" + table.name + "\""
    }
}
