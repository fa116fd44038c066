import Stash

extension PostgresStore {
    /// Applies a change set in one transaction, in the order `StoreChangeSet.write(with:)`
    /// takes for both stores (`PostgresChangeWriter`): deletes, then updates, then inserts,
    /// each across every entity in change set order; then the values that named rows written
    /// later, the many-to-many lists and the list places. A save that wrote no row rolls back
    /// and announces nothing.
    ///
    /// ```sql
    /// BEGIN
    /// UPDATE "_stash_commits" SET "count" = "count" + 1 RETURNING "count" - 1   -- the writer lock
    /// DELETE FROM "Post" WHERE "_pk" IN (SELECT unnest($1::int8[]))
    /// UPDATE "Post" SET "title" = $1 WHERE "_pk" = $2                        -- pipelined, one per row
    /// SELECT "_pk", "id" FROM "Post" WHERE "id" IN (SELECT unnest($1::int8[]))   -- stored matches
    /// SELECT nextval(pg_get_serial_sequence('"Post"', '_pk')) FROM generate_series(1, $1)
    /// INSERT INTO "Post" ("_pk", "id", "title") VALUES ($1, $2, $3), ($4, $5, $6)
    /// SELECT … FROM pg_stat_xact_user_tables …                               -- did it write a row?
    /// SELECT pg_notify('stash:public', 'stash1 9f3c2a71 1842\nPost i101-102')  -- delivered on COMMIT
    /// COMMIT
    /// ```
    ///
    /// New rows' keys are reserved from the identity's sequence before they are written, so
    /// a batch of rows is one statement and the values that point at them are known; an
    /// entity's batches go in pipeline mode (`PostgresConnection.executePipelined`).
    func save(_ changes: StoreChangeSet) throws -> SaveResult {
        try refuseInsideTransaction("a save", entity: changes.entities.first?.entity.name)
        return try pool.withConnection { connection in
            var (result, tokens) = try transaction(on: connection) { try $0.write(changes) }
            result.tokens = tokens
            return result
        }
    }

    /// One transaction around `body`'s batches (see `Store.inOneTransaction`), on a connection
    /// pinned to the thread, so that the thread's reads see what the batches wrote.
    func inOneTransaction<Result>(_ body: (TransactionWrites) throws -> Result) throws -> (Result, CommitTokens) {
        guard !pool.isPinnedToThisThread else { throw StashError.batchedImportInsideAnother }
        return try pool.pinning { connection in try transaction(on: connection, body) }
    }

    /// One transaction on `connection`, whose change sets `body` writes: the count's row
    /// locked first (Stash's writer lock), each change set written, then, if any row was
    /// written, one notification of every change set's rows, folded, and COMMIT; a
    /// transaction that wrote no row rolls back, leaves the change token where it was and
    /// tells no one, as an SQLite transaction that writes nothing leaves the file's
    /// data_version. A save is one change set.
    private func transaction<Result>(
        on connection: PostgresConnection, _ body: (TransactionWrites) throws -> Result
    ) throws -> (Result, CommitTokens) {
        try connection.execute("BEGIN")
        do {
            let lock = try connection.execute(
                "UPDATE \"_stash_commits\" SET \"count\" = \"count\" + 1 RETURNING \"count\" - 1, \(Self.rowsWritten)")
            let before = lock.integer(0, 0)
            let rowsBefore = lock.integer(0, 1)
            var written: [(entity: String, rows: RowChanges)] = []
            var isOpen = true
            let write: (StoreChangeSet) throws -> SaveResult = { [self] changes in
                guard isOpen else { throw StashError.batchAfterItsTransaction }
                if let outbox = changes.outbox, !outbox.isEmpty {
                    throw StashError(
                        .storeFailed,
                        "RemoteModel edits (the outbox) are not kept by a PostgreSQL store yet; nothing was saved",
                        entity: changes.entities.first?.entity.name)
                }
                let result = try changes.write(with: PostgresChangeWriter(store: self, connection: connection))
                written += try changes.committedRows(result)
                return result
            }
            defer { isOpen = false }
            // Writers other than Stash's saves are not held off by the count's row.
            let result = try body(TransactionWrites(write: write, excludesOtherWriters: false))
            // The session's row counts are not reported to the server inside a transaction,
            // so the difference is this transaction's.
            let rowsAfter = try connection.execute("SELECT \(Self.rowsWritten)").integer(0, 0)
            guard rowsAfter != rowsBefore else {
                try connection.execute("ROLLBACK")
                return (result, CommitTokens(beforeCommit: before, afterCommit: before))
            }
            try notify(written, commit: before + 1, connection)
            try connection.execute("COMMIT")
            // The count's row stayed locked by this transaction from its first statement to
            // its commit: no other Stash commit came between, so the count after it is
            // exactly one more, where reading it again afterwards could take a commit by
            // another process in that instant for this one.
            return (result, CommitTokens(beforeCommit: before, afterCommit: before + 1))
        } catch {
            if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Tells other containers' listening connections what the transaction changed, each
    /// entity's rows folded over its change sets (`PostgresNotification`); sent inside the
    /// transaction, it is delivered only if it commits, and in commit order.
    private func notify(
        _ written: [(entity: String, rows: RowChanges)], commit: Int64, _ connection: PostgresConnection
    ) throws {
        var names: [String] = []
        var byEntity: [String: [RowChanges]] = [:]
        for (entity, rows) in written {
            if byEntity[entity] == nil { names.append(entity) }
            byEntity[entity, default: []].append(rows)
        }
        let rows = names.map { (entity: $0, rows: RowChanges(folding: byEntity[$0]!)) }
        guard let payload = PostgresNotification.payload(origin: origin, commit: commit, rows: rows) else { return }
        try connection.execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// The rows this session inserted, updated and deleted, less the count's, since it last
    /// reported to the server (`bigint`).
    static let rowsWritten =
        "(SELECT coalesce(sum(\"n_tup_ins\" + \"n_tup_upd\" + \"n_tup_del\"), 0)::int8 "
        + "FROM pg_stat_xact_user_tables WHERE \"relname\" <> '_stash_commits')"

    func updateRows(
        of changes: EntityChanges, at position: Int, _ result: inout EntitySaveResult,
        _ later: inout PostgresLaterWrites, _ connection: PostgresConnection
    ) throws {
        let updates = changes.updates
        var columnSets = updates.columnSets
        let expected = changes.onConflict == .overwrite ? nil : updates.expected
        if expected != nil || !updates.checkedSets.isEmpty {
            try compareWithStoredRows(of: changes, expected, &columnSets, &result, connection)
        }
        let width = changes.entity.columns.count
        var batch = PostgresUpdateBatch()
        for row in 0..<updates.count {
            guard !columnSets[row].isEmpty else {
                result.unwrittenUpdates.insert(row)
                continue
            }
            let rowID = updates.rowIDs[row]
            let columns = columnSets[row].positions(below: width)
            let values = try columns.map { column in
                try later.value(of: updates, row, entity: position, rowID: rowID, column: column)
            }
            batch.update(changes.entity, rowID, columns, values)
        }
        try batch.send(connection)
    }

    /// Reads, inside the save's transaction (after the writer lock), the stored values of
    /// the columns the updates compare, and takes out of `columnSets` what need not be
    /// written (see `StoredRowComparison`).
    private func compareWithStoredRows(
        of changes: EntityChanges, _ expected: ((Int, Int) -> StoredValue?)?, _ columnSets: inout [AttributeSet],
        _ result: inout EntitySaveResult, _ connection: PostgresConnection
    ) throws {
        let entity = changes.entity
        var comparison = StoredRowComparison(changes, expected: expected, columnSets: columnSets)
        let read = comparison.read
        let select =
            "SELECT " + (["_pk"] + read.map { entity.columns[$0].name }).map(quoted).joined(separator: ", ")
            + " FROM \(quoted(entity.name)) WHERE \"_pk\" IN (SELECT unnest($1::int8[]))"
        let stored = try connection.execute(
            select, [.text(QueryRenderer.arrayLiteral(comparison.rowIDs.map { .integer($0) }))])
        for index in 0..<stored.rowCount {
            let value = { stored.value(index, $0 + 1, entity.columns[read[$0]].type) }
            try comparison.compare(
                rowID: stored.integer(index, 0), value, holds: { value($0) == $1 }, &columnSets, &result)
        }
        try comparison.finish()
    }

    func insertRows(
        of changes: EntityChanges, at position: Int, into result: inout EntitySaveResult, _ inserted: InsertedRows,
        _ later: inout PostgresLaterWrites, _ connection: PostgresConnection
    ) throws {
        let inserts = changes.inserts
        guard !inserts.isEmpty else { return }
        let entity = changes.entity
        result.insertedRowIDs = Array(repeating: 0, count: inserts.count)
        result.matches = Array(repeating: nil, count: inserts.count)
        var pending = Array(0..<inserts.count)
        if changes.matchesStoredRows, !entity.uniqueColumns.isEmpty {
            pending = try matchStoredRows(of: changes, at: position, pending, &result, inserted, &later, connection)
        }
        guard !pending.isEmpty else { return }
        // Keys first: every row of this entity is known before any value is asked for.
        let keys = try connection.execute(
            "SELECT nextval(pg_get_serial_sequence($1, '_pk')) FROM generate_series(1, $2)",
            [.text(quoted(entity.name)), .integer(Int64(pending.count))])
        let rowIDs = (0..<keys.rowCount).map { keys.integer($0, 0) }.sorted()
        for (offset, row) in pending.enumerated() {
            result.insertedRowIDs[row] = rowIDs[offset]
            inserted.record(entity: position, row: row, rowID: rowIDs[offset])
        }
        // The store's schema has the list position columns; the change set's entity, the
        // model's, does not (see `EntityDescription.storeSchema`).
        let positionColumns = entities[entity.name]?.positionColumns ?? entity.positionColumns
        let names = ["_pk"] + entity.columns.map(\.name) + positionColumns
        let width = names.count
        let batch = max(1, min(1000, 60_000 / width))
        let head = "INSERT INTO \(quoted(entity.name)) (\(names.map(quoted).joined(separator: ", "))) VALUES "
        var statements: [(sql: String, parameters: [StoredValue])] = []
        var start = 0
        while start < pending.count {
            let count = min(batch, pending.count - start)
            var sql = head
            var values: [StoredValue] = []
            values.reserveCapacity(count * width)
            for offset in 0..<count {
                let row = pending[start + offset]
                let rowID = rowIDs[start + offset]
                if offset > 0 { sql += ", " }
                sql += "("
                for column in 0..<width {
                    if column > 0 { sql += ", " }
                    sql += "$\(values.count + column + 1)"
                }
                sql += ")"
                values.append(.integer(rowID))
                for column in 0..<entity.columns.count {
                    values.append(
                        try later.value(of: inserts, row, entity: position, rowID: rowID, column: column))
                }
                for name in positionColumns {
                    values.append(try inserts.position?(row, name) ?? .null)
                }
            }
            statements.append((sql, values))
            start += count
        }
        try connection.executePipelined(statements)
    }

    /// Finds the stored rows that the inserts' unique values already name and applies the
    /// change set's `onStoredMatch` rule to each, as `SQLiteStore.matchStoredRows` does.
    /// Returns the inserts that really are new.
    private func matchStoredRows(
        of changes: EntityChanges, at position: Int, _ candidates: [Int], _ result: inout EntitySaveResult,
        _ inserted: InsertedRows, _ later: inout PostgresLaterWrites, _ connection: PostgresConnection
    ) throws -> [Int] {
        let entity = changes.entity
        let inserts = changes.inserts
        let columnCount = entity.columns.count
        // The matched rows' updates, sent together once every match is known.
        var updates = PostgresUpdateBatch()
        var wanted: [Int]
        if changes.onStoredMatch == .keepStored {
            wanted = Array(0..<columnCount)
        } else {
            let given = candidates.reduce(AttributeSet.all(columnCount)) { common, row in
                common.intersection(inserts.columnSets[row])
            }
            wanted = (0..<columnCount).filter { !given.contains($0) }
        }
        var unmatched = candidates
        for unique in entity.uniqueColumns where !unmatched.isEmpty {
            var rowsByValue: [StoredValue: Int] = [:]
            for row in unmatched {
                let value = try inserts.value(row, unique)
                if value != .null { rowsByValue[value] = row }
            }
            guard !rowsByValue.isEmpty else { continue }
            let values = Array(rowsByValue.keys)
            let type = entity.columns[unique].type
            let select =
                "SELECT "
                + (["_pk", entity.columns[unique].name] + wanted.map { entity.columns[$0].name })
                .map(quoted).joined(separator: ", ")
                + " FROM \(quoted(entity.name)) WHERE \(quoted(entity.columns[unique].name)) IN (SELECT unnest($1::"
                + PostgresSchema.arrayType(type) + "))"
            let parameter: StoredValue =
                type == .blob ? .null : .text(QueryRenderer.arrayLiteral(values))
            guard type != .blob else {
                throw StashError(
                    .storeFailed, "a unique attribute stored as bytes is not matched on PostgreSQL yet",
                    entity: entity.name, attribute: entity.columns[unique].name)
            }
            let stored = try connection.execute(select, [parameter])
            for index in 0..<stored.rowCount {
                let rowID = stored.integer(index, 0)
                let value = stored.value(index, 1, type)
                guard let row = rowsByValue[value] else { continue }
                if changes.onStoredMatch == .fail {
                    throw StashError(
                        .uniqueConflict, "the value \(value) is already stored and the merge policy is .fail",
                        entity: entity.name, attribute: entity.columns[unique].name)
                }
                let given = inserts.columnSets[row]
                var reported: [StoredValue?] = []
                if !wanted.isEmpty {
                    reported = Array(repeating: nil, count: columnCount)
                    for (offset, column) in wanted.enumerated()
                    where changes.onStoredMatch == .keepStored || !given.contains(column) {
                        reported[column] = stored.value(index, offset + 2, entity.columns[column].type)
                    }
                }
                if changes.onStoredMatch == .update {
                    var written = given
                    written.remove(unique)
                    let columns = written.positions(below: columnCount)
                    let values = try columns.map { column in
                        try later.value(of: inserts, row, entity: position, rowID: rowID, column: column)
                    }
                    updates.update(entity, rowID, columns, values)
                }
                result.insertedRowIDs[row] = rowID
                inserted.record(entity: position, row: row, rowID: rowID)
                inserted.recordMatch(rowID: rowID)
                result.matches[row] = reported
            }
            unmatched.removeAll { result.matches[$0] != nil }
        }
        try updates.send(connection)
        return unmatched
    }
}
