import Foundation

/// The outbox of `RemoteModel` edits: `_stash_outbox`, one row per operation waiting to be
/// pushed, written in the transaction of the save that made it (see `OutboxWrite`), and the
/// rows' ETags (`_stash_row_etags`, key `<Entity>/<row id>`).
///
/// An operation that was never sent (or that the server refused with a 4xx, so it applied
/// nothing) takes the next edits of its row: a `POST` stays a `POST` (its values are read
/// when it is sent), a `PATCH` gains the attributes changed since, a `DELETE` after a `POST`
/// removes both and after a `PATCH` replaces it. An operation already sent is left as it
/// was, with its idempotency key, and the next edit becomes an operation of its own.
extension SQLiteStore: OutboxStore {
    static let outboxTable = "_stash_outbox"

    /// The columns of rows that operations still wait to send, as the transaction found them
    /// before a save that does not record edits wrote anything, by table and row.
    struct PendingEdits {
        var rows: [(schema: EntitySchema, rowID: Int64, columns: AttributeSet, values: [Int: StoredValue])] = []
        /// By entity name, the rows whose `POST` or `PATCH` waits: such a save does not delete them.
        var waiting: [String: Set<Int64>] = [:]
    }

    private func createOutbox(_ connection: SQLiteConnection) throws {
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS \"_stash_outbox\" (\"sequence\" INTEGER PRIMARY KEY AUTOINCREMENT, "
                + "\"entity\" TEXT NOT NULL, \"row\" INTEGER NOT NULL, \"key\" TEXT NOT NULL, "
                + "\"method\" TEXT NOT NULL, \"attributes\" TEXT NOT NULL, \"idempotency_key\" TEXT NOT NULL, "
                + "\"attempts\" INTEGER NOT NULL DEFAULT 0, \"failure\" TEXT, \"merged\" INTEGER NOT NULL DEFAULT 0, "
                + "\"body\" BLOB, \"stored_key\"); "
                + "CREATE INDEX IF NOT EXISTS \"_stash_outbox_row\" ON \"_stash_outbox\" (\"entity\", \"row\"); "
                + "CREATE TABLE IF NOT EXISTS \"_stash_row_etags\" (\"key\" TEXT PRIMARY KEY NOT NULL, "
                + "\"value\" TEXT NOT NULL) WITHOUT ROWID")
    }

    private func outboxExists(_ connection: SQLiteConnection) throws -> Bool {
        try connection.integer(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(Self.outboxTable)]) > 0
    }

    // MARK: Inside a save's transaction

    /// Before the save's writes: removes the acknowledged operations, and reads what the
    /// protected entities' rows hold in the columns that operations still wait to send.
    func beginOutbox(_ write: OutboxWrite?, _ connection: SQLiteConnection) throws -> PendingEdits {
        var pending = PendingEdits()
        guard let write, !write.isEmpty || !write.protectedEntities.isEmpty else { return pending }
        if !write.isEmpty {
            try createOutbox(connection)
        } else if try !outboxExists(connection) {
            return pending
        }
        if !write.acknowledged.isEmpty, acknowledgements.isWatched {
            try noteAcknowledged(write.acknowledged, connection)
        }
        let delete = try connection.statement("DELETE FROM \"_stash_outbox\" WHERE \"sequence\" = ?")
        for sequence in write.acknowledged { try delete.run([.integer(sequence)]) }
        // A fetch's answer is older than the operations acknowledged since its request: their
        // columns are kept as the waiting ones' are.
        let acknowledgedSince = write.fetchedAt.map { acknowledgements.entries(since: $0) } ?? []
        if let mark = write.fetchedAt, !write.fetchedInsertKeys.isEmpty {
            try refuseObjectsDeleted(since: mark, in: write)
        }
        for schema in write.protectedEntities {
            var columnsByRow: [Int64: AttributeSet] = [:]
            func protect(_ rowID: Int64, _ names: [String]) {
                var columns = columnsByRow[rowID, default: AttributeSet()]
                for name in names {
                    if let column = schema.columns.firstIndex(where: { $0.name == name }) { columns.insert(column) }
                }
                columnsByRow[rowID] = columns
            }
            try connection.forEachRow(
                "SELECT \"row\", \"method\", \"attributes\" FROM \"_stash_outbox\" WHERE \"entity\" = ? "
                    + "AND \"method\" <> 'DELETE'", [.text(schema.name)]
            ) { row in
                protect(row.int64(0), row.text(1) == "POST" ? schema.columns.map(\.name) : Self.names(row.text(2)))
            }
            for entry in acknowledgedSince where entry.entity == schema.name {
                protect(entry.rowID, entry.columns ?? schema.columns.map(\.name))
            }
            if !columnsByRow.isEmpty { pending.waiting[schema.name] = Set(columnsByRow.keys) }
            let sql = entitySQL(schema)
            for (rowID, columns) in columnsByRow.sorted(by: { $0.key < $1.key }) {
                let read = columns.positions(below: schema.columns.count)
                var values: [Int: StoredValue] = [:]
                try connection.forEachRow(sql.select(read, where: .rowIDs(count: 1), ordered: false), [.integer(rowID)])
                { row in
                    for (offset, column) in read.enumerated() { values[column] = row.column(Int32(offset + 1)) }
                }
                if !values.isEmpty { pending.rows.append((schema, rowID, columns, values)) }
            }
        }
        return pending
    }

    /// Refuses a fetch's save that would make again an object a `DELETE` acknowledged since
    /// its request named: `dropObjectsDeleted(since:)` looked before the save, and a push may
    /// have been acknowledged since (its own look for such copies ran before this write). In
    /// the save's transaction, no acknowledgement can come between this look and the commit.
    private func refuseObjectsDeleted(since mark: OutboxMark, in write: OutboxWrite) throws {
        let deleted = acknowledgements.deletedKeys(since: mark)
        for (entity, keys) in write.fetchedInsertKeys {
            guard let named = deleted[entity] else { continue }
            if keys.contains(where: { !$0.isEmpty && named.contains($0) }) { throw ObjectsDeletedSinceFetch() }
        }
    }

    /// Notes the operations about to be removed as acknowledged, for the fetches in flight: a
    /// `POST`'s row with all its columns, a `PATCH`'s with the attributes it sent, a `DELETE`'s
    /// key (its row is gone).
    private func noteAcknowledged(_ sequences: [Int64], _ connection: SQLiteConnection) throws {
        var noted: [OutboxAcknowledgements.Acknowledged] = []
        let read = try connection.statement(
            "SELECT \"entity\", \"row\", \"method\", \"attributes\", \"key\" FROM \"_stash_outbox\" WHERE \"sequence\" = ?"
        )
        for sequence in sequences {
            read.reset()
            try read.bind(.integer(sequence), at: 1)
            guard try read.step() else { continue }
            switch read.text(2) {
            case "POST": noted.append((read.text(0), read.int64(1), nil, nil))
            case "PATCH": noted.append((read.text(0), read.int64(1), Self.names(read.text(3)), nil))
            case "DELETE": noted.append((read.text(0), read.int64(1), nil, read.text(4)))
            default: break
            }
        }
        read.reset()
        acknowledgements.note(noted)
    }

    /// After the save's writes: puts back the pending edits' columns that the save changed,
    /// records the new operations (merged with those waiting) and the ETags.
    func finishOutbox(
        _ write: OutboxWrite?, _ pending: PendingEdits, _ result: SaveResult, _ connection: SQLiteConnection
    ) throws {
        guard let write else { return }
        for (schema, rowID, columns, values) in pending.rows {
            let sql = entitySQL(schema)
            let read = columns.positions(below: schema.columns.count)
            var changed = AttributeSet()
            try connection.forEachRow(sql.select(read, where: .rowIDs(count: 1), ordered: false), [.integer(rowID)]) {
                row in
                for (offset, column) in read.enumerated() where row.column(Int32(offset + 1)) != values[column] {
                    changed.insert(column)
                }
            }
            guard !changed.isEmpty else { continue }
            var updater = RowUpdater(entity: sql)
            defer { updater.finish() }
            try updater.update(rowID, setting: changed, to: { values[$0] ?? .null }, in: self, connection)
        }
        for var record in write.records {
            var method = record.method
            let rowID: Int64
            switch record.row {
            case .known(let known):
                rowID = known
            case .updated(let entity, let offset, let updated):
                rowID = updated
                // Only the columns this save changed in the row: not those it found already
                // holding the value written (compared with the row as this transaction read
                // it, before writing), nor those `.storedWins` left as stored. A `PATCH`
                // waiting for the row keeps its own: merging only adds.
                let saved = result.entity(at: entity)
                let unchanged = saved.unchangedColumns[updated] ?? AttributeSet()
                let kept = saved.keptStored[offset] ?? [:]
                record.leaveOut { unchanged.contains($0) || kept[$0] != nil }
            case .inserted(let entity, let offset):
                let inserted = result.entities[entity]
                rowID = inserted.insertedRowIDs[offset]
                // Matched a stored row by its unique value: an edit of that row, of the columns
                // it changed. Those the store reported kept their stored values (`.keepStored`
                // reports every column), and those the row already held with the value written
                // (`unchangedMatchColumns`), were not changed there: they are not sent.
                if let reported = inserted.matches[offset] {
                    method = .patch
                    let unchanged = inserted.unchangedMatchColumns[offset] ?? AttributeSet()
                    record.leaveOut { unchanged.contains($0) || ($0 < reported.count && reported[$0] != nil) }
                }
            }
            if method == .patch && record.attributes.isEmpty { continue }
            try recordOperation(record, method: method, rowID: rowID, connection)
        }
        if !write.keys.isEmpty {
            // Only operations recorded before the key was known (`""`): the others named it.
            let name = try connection.statement(
                "UPDATE \"_stash_outbox\" SET \"key\" = ? WHERE \"entity\" = ? AND \"row\" = ? AND \"key\" = ''")
            for key in write.keys { try name.run([.text(key.value), .text(key.entityName), .integer(key.rowID)]) }
        }
        var etags = write.etags
        if let mark = write.fetchedAt, !etags.isEmpty {
            // A fetch's ETag is not kept for a row whose operations wait, nor over a push's
            // acknowledged since its request: the next write would be refused (412) for it.
            let acknowledged = Set(acknowledgements.entries(since: mark).map { "\($0.entity)/\($0.rowID)" })
            let waits = try connection.statement(
                "SELECT 1 FROM \"_stash_outbox\" WHERE \"entity\" = ? AND \"row\" = ? LIMIT 1")
            etags = try etags.filter { etag in
                guard !acknowledged.contains("\(etag.entityName)/\(etag.rowID)") else { return false }
                waits.reset()
                defer { waits.reset() }
                try waits.bind(.text(etag.entityName), at: 1)
                try waits.bind(.integer(etag.rowID), at: 2)
                return try !waits.step()
            }
        }
        if !etags.isEmpty {
            let upsert = try connection.statement(
                "INSERT INTO \"_stash_row_etags\" (\"key\", \"value\") VALUES (?, ?) "
                    + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
            let delete = try connection.statement("DELETE FROM \"_stash_row_etags\" WHERE \"key\" = ?")
            for etag in etags {
                let key = StoredValue.text("\(etag.entityName)/\(etag.rowID)")
                if let value = etag.value { try upsert.run([key, .text(value)]) } else { try delete.run([key]) }
            }
        }
    }

    /// Adds one operation, or merges it into the row's last one if that was never sent (or
    /// was refused, so applied nothing): see the type's comment.
    private func recordOperation(
        _ record: OutboxWrite.Record, method: OutboxOperation.Method, rowID: Int64, _ connection: SQLiteConnection
    ) throws {
        var last: (sequence: Int64, method: String, attributes: [String], mergeable: Bool)?
        try connection.forEachRow(
            "SELECT \"sequence\", \"method\", \"attributes\", \"attempts\", \"failure\" FROM \"_stash_outbox\" "
                + "WHERE \"entity\" = ? AND \"row\" = ? ORDER BY \"sequence\" DESC LIMIT 1",
            [.text(record.entity), .integer(rowID)]
        ) { row in
            let mergeable = row.int64(3) == 0 || row.column(4) != .null
            last = (row.int64(0), row.text(1), Self.names(row.text(2)), mergeable)
        }
        let fresh = StoredValue.text(UUID().uuidString.lowercased())
        if let last, last.mergeable {
            // A refused operation is sent again as a new request: a new key.
            let reset = "\"idempotency_key\" = ?, \"attempts\" = 0, \"failure\" = NULL"
            switch (last.method, method) {
            case ("POST", .patch):
                try connection.statement(
                    "UPDATE \"_stash_outbox\" SET \"merged\" = \"merged\" + 1, "
                        + "\"body\" = CASE WHEN \"failure\" IS NULL THEN \"body\" END, "
                        + "\"idempotency_key\" = CASE WHEN \"failure\" IS NULL THEN \"idempotency_key\" ELSE ? END, "
                        + "\"attempts\" = CASE WHEN \"failure\" IS NULL THEN \"attempts\" ELSE 0 END, \"failure\" = NULL "
                        + "WHERE \"sequence\" = ?"
                )
                .run([fresh, .integer(last.sequence)])
                return
            case ("PATCH", .patch):
                var names = last.attributes
                for name in record.attributes where !names.contains(name) { names.append(name) }
                try connection.statement(
                    "UPDATE \"_stash_outbox\" SET \"attributes\" = ?, \"merged\" = \"merged\" + 1, "
                        + "\"idempotency_key\" = CASE WHEN \"failure\" IS NULL THEN \"idempotency_key\" ELSE ? END, "
                        + "\"attempts\" = 0, \"failure\" = NULL, \"body\" = NULL WHERE \"sequence\" = ?"
                ).run([.text(names.joined(separator: ",")), fresh, .integer(last.sequence)])
                return
            case ("POST", .delete):
                // Never on the server: nothing to send.
                try connection.statement("DELETE FROM \"_stash_outbox\" WHERE \"sequence\" = ?")
                    .run([.integer(last.sequence)])
                return
            case ("PATCH", .delete):
                try connection.statement(
                    "UPDATE \"_stash_outbox\" SET \"method\" = 'DELETE', \"attributes\" = '', \"body\" = NULL, \"stored_key\" = ?, "
                        + "\"merged\" = \"merged\" + 1, \(reset) "
                        + "WHERE \"sequence\" = ?"
                ).run([record.storedKey, fresh, .integer(last.sequence)])
                return
            default:
                break
            }
        }
        try connection.statement(
            "INSERT INTO \"_stash_outbox\" (\"entity\", \"row\", \"key\", \"method\", \"attributes\", "
                + "\"idempotency_key\", \"stored_key\") VALUES (?, ?, ?, ?, ?, ?, ?)"
        ).run([
            .text(record.entity), .integer(rowID), .text(record.key), .text(method.rawValue),
            .text(method == .patch ? record.attributes.joined(separator: ",") : ""), fresh, record.storedKey,
        ])
    }

    private static func names(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    // MARK: For a push, each in a transaction of its own

    /// Every operation waiting, in order.
    func outboxOperations() throws -> [OutboxOperation] {
        try withReader { connection in
            guard try outboxExists(connection) else { return [] }
            var operations: [OutboxOperation] = []
            try connection.forEachRow(
                "SELECT \"sequence\", \"entity\", \"row\", \"key\", \"method\", \"attributes\", \"idempotency_key\", "
                    + "\"attempts\", \"failure\", \"merged\", \"body\", \"stored_key\" FROM \"_stash_outbox\" "
                    + "ORDER BY \"sequence\""
            ) { row in
                let failure = row.column(8)
                let body: Data? =
                    switch row.column(10) {
                    case .blob(let bytes): Data(bytes)
                    default: nil
                    }
                operations.append(
                    OutboxOperation(
                        sequence: row.int64(0), entityName: row.text(1), rowID: row.int64(2), key: row.text(3),
                        method: OutboxOperation.Method(rawValue: row.text(4)) ?? .patch,
                        attributes: Self.names(row.text(5)), idempotencyKey: row.text(6), attempts: Int(row.int64(7)),
                        failure: failure == .null ? nil : row.text(8), merged: Int(row.int64(9)), body: body,
                        storedKey: row.column(11)))
            }
            return operations
        }
    }

    /// Notes that an operation is being sent (later edits no longer merge into it), or that
    /// the server refused it (`failure`), or removes acknowledged ones, sets ETags and keys.
    func updateOutbox(
        attempted: OutboxAttempt?, failed: (Int64, String?)?, acknowledged: [Int64], etags: [OutboxETag],
        keys: [OutboxKey], fetchedAt: OutboxMark?
    ) throws -> (recorded: Bool, tokens: CommitTokens) {
        try refuseInsideTransaction("updating the outbox")
        return try withConnection { connection in
            var recorded = true
            // The tokens around the commit: the container's own, not another process's.
            let (_, tokens) = try committing(connection) {
                try createOutbox(connection)
                if let attempted {
                    // Not once an edit merged into it (or removed it) since the push read it:
                    // marked sent, it would be acknowledged with a body that misses the edit.
                    try connection.statement(
                        "UPDATE \"_stash_outbox\" SET \"attempts\" = \"attempts\" + 1, \"body\" = ?1, "
                            + "\"idempotency_key\" = coalesce(?2, \"idempotency_key\") WHERE \"sequence\" = ?3 "
                            + "AND (?4 IS NULL OR \"merged\" = ?4)"
                    ).run([
                        attempted.body.map { .blob([UInt8]($0)) } ?? .null,
                        attempted.idempotencyKey.map(StoredValue.text) ?? .null, .integer(attempted.sequence),
                        attempted.merged.map { .integer(Int64($0)) } ?? .null,
                    ])
                    recorded = connection.changes > 0
                }
                if let (sequence, message) = failed {
                    try connection.statement("UPDATE \"_stash_outbox\" SET \"failure\" = ? WHERE \"sequence\" = ?")
                        .run([message.map(StoredValue.text) ?? .null, .integer(sequence)])
                }
                var write = OutboxWrite()
                write.acknowledged = acknowledged
                write.etags = etags
                write.keys = keys
                write.fetchedAt = fetchedAt
                _ = try beginOutbox(write, connection)
                try finishOutbox(write, PendingEdits(), SaveResult(), connection)
            }
            return (recorded, tokens)
        }
    }
}
