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

    func setBookkeepingValues(in table: BookkeepingTable, _ values: [String: String?]) throws
        -> (before: Int64?, after: Int64?)
    {
        // A file's token is read inside the transaction, which holds the write lock from
        // its start: no commit comes between it and the write; the token after it is read
        // as a save's is (`tokenAfterOwnCommit`). An in-memory store's token takes the
        // writer's lock, so it is read outside it; a save of this process in between moves
        // the container's save generation, which a hand-over checks as well.
        try refuseInsideTransaction("writing Stash's bookkeeping")
        let inMemory = path == nil
        var before = inMemory ? try changeToken() : nil
        let after: Int64? = try withConnection { connection in
            var writerVersion: Int64?
            try connection.transaction {
                if !inMemory {
                    before = try changeToken()
                    writerVersion = try connection.integer("PRAGMA data_version")
                }
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
            guard let writerVersion else { return nil }
            // Committed: a token that cannot be read is none vouched for, not a failed write.
            return try? tokenAfterOwnCommit(writerVersion, connection)
        }
        return (before, inMemory ? try changeToken() : after)
    }

    private func quotedTable(_ table: BookkeepingTable) -> String {
        "\"" + table.name + "\""
    }
}
