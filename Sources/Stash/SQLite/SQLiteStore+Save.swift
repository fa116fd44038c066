extension SQLiteStore {
    /// Applies a change set in one `BEGIN IMMEDIATE` transaction: deletes, then updates,
    /// then inserts, each across every entity in change set order.
    ///
    /// Before inserting an entity's rows, the rows that already hold their unique values are
    /// looked up, one `SELECT … WHERE "id" IN (?, …)` per 500 values (skipped when the table
    /// is empty), and a match updates or keeps that row instead (see `StoredMatchRule`).
    func save(_ changes: StoreChangeSet) throws -> SaveResult {
        try withConnection { connection in
            try connection.transaction {
                for entity in changes.entities where !entity.deletes.isEmpty {
                    try inPlace(entity.entity.name) { try deleteRows(of: entity, connection) }
                }
                for entity in changes.entities where !entity.updates.isEmpty {
                    try inPlace(entity.entity.name) { try updateRows(of: entity, connection) }
                }
                var result = SaveResult()
                for entity in changes.entities {
                    result.entities.append(try inPlace(entity.entity.name) { try insertRows(of: entity, connection) })
                }
                return result
            }
        }
    }

    private func deleteRows(of changes: EntityChanges, _ connection: SQLiteConnection) throws {
        let statement = try connection.statement(entitySQL(changes.entity).deleteByKey)
        for rowID in changes.deletes {
            try statement.run([.integer(rowID)])
        }
    }

    private func updateRows(of changes: EntityChanges, _ connection: SQLiteConnection) throws {
        var updater = RowUpdater(entity: entitySQL(changes.entity))
        defer { updater.finish() }
        let updates = changes.updates
        for row in 0..<updates.count {
            try updater.update(
                updates.rowIDs[row], setting: updates.columnSets[row], to: { try updates.value(row, $0) }, in: self,
                connection)
        }
    }

    private func insertRows(of changes: EntityChanges, _ connection: SQLiteConnection) throws -> EntitySaveResult {
        let inserts = changes.inserts
        var result = EntitySaveResult()
        guard !inserts.isEmpty else { return result }
        let entitySQL = entitySQL(changes.entity)
        result.insertedRowIDs = Array(repeating: 0, count: inserts.count)
        result.matches = Array(repeating: nil, count: inserts.count)
        var pending = Array(0..<inserts.count)
        if !changes.entity.uniqueColumns.isEmpty, try connection.integer(entitySQL.anyRow) != 0 {
            pending = try matchStoredRows(of: changes, pending, &result, connection)
        }
        let statement = try connection.statement(entitySQL.insert)
        defer { statement.reset() }
        let columnCount = changes.entity.columns.count
        for row in pending {
            statement.rewind()
            for column in 0..<columnCount {
                try statement.bind(inserts.value(row, column), at: Int32(column + 1))
            }
            while try statement.step() {}
            result.insertedRowIDs[row] = connection.lastInsertedRowID
        }
        return result
    }

    /// Finds the stored rows that the inserts' unique values already name and applies the
    /// change set's `onStoredMatch` rule to each. Returns the inserts that really are new.
    ///
    /// Reads only the key, the unique column and the columns some insert was not given
    /// (all of them under `.keepStored`): a re-import that sets every attribute reads two.
    private func matchStoredRows(
        of changes: EntityChanges, _ candidates: [Int], _ result: inout EntitySaveResult,
        _ connection: SQLiteConnection
    ) throws -> [Int] {
        let entity = changes.entity
        let inserts = changes.inserts
        let columnCount = entity.columns.count
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
        var updater = RowUpdater(entity: entitySQL(entity))
        defer { updater.finish() }
        for unique in entity.uniqueColumns where !unmatched.isEmpty {
            var rowsByValue: [StoredValue: Int] = [:]
            for row in unmatched {
                let value = try inserts.value(row, unique)
                if value != .null { rowsByValue[value] = row }
            }
            guard !rowsByValue.isEmpty else { continue }
            try fetchRows(of: entity, where: unique, in: Array(rowsByValue.keys), reading: wanted, connection) {
                rowID, value, stored in
                guard let row = rowsByValue[value] else { return }
                if changes.onStoredMatch == .fail {
                    throw StashError(
                        .uniqueConflict, "the value \(value) is already stored and the merge policy is .fail",
                        entity: entity.name, attribute: entity.columns[unique].name)
                }
                let given = inserts.columnSets[row]
                var reported: [StoredValue?] = []
                if !wanted.isEmpty {
                    reported = Array(repeating: nil, count: columnCount)
                    for (column, value) in zip(wanted, stored)
                    where changes.onStoredMatch == .keepStored || !given.contains(column) {
                        reported[column] = value
                    }
                }
                if changes.onStoredMatch == .update {
                    // The row was found by this value: setting it again would only make
                    // SQLite rewrite the unique index entry.
                    var written = given
                    written.remove(unique)
                    try updater.update(
                        rowID, setting: written, to: { try inserts.value(row, $0) }, in: self, connection)
                }
                result.insertedRowIDs[row] = rowID
                result.matches[row] = reported
            }
            unmatched.removeAll { result.matches[$0] != nil }
        }
        return unmatched
    }

    /// Calls `body` with the key, the `unique` value and the `wanted` columns of each stored
    /// row whose `unique` column holds one of `values`, 500 values a query.
    private func fetchRows(
        of entity: EntitySchema, where unique: Int, in values: [StoredValue], reading wanted: [Int],
        _ connection: SQLiteConnection, _ body: (Int64, StoredValue, [StoredValue]) throws -> Void
    ) throws {
        let entitySQL = entitySQL(entity)
        for start in stride(from: 0, to: values.count, by: filterBatchSize) {
            let batch = Array(values[start..<min(start + filterBatchSize, values.count)])
            let sql = entitySQL.select(
                [unique] + wanted, where: .values(column: unique, count: batch.count), ordered: false)
            try connection.forEachRow(sql, batch) { statement in
                let stored = (0..<wanted.count).map { statement.column(Int32($0 + 2)) }
                try body(statement.int64(0), statement.column(1), stored)
            }
        }
    }
}
