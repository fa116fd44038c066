extension SQLiteStore {
    /// Applies a change set in one `BEGIN IMMEDIATE` transaction: deletes, then updates,
    /// then inserts, each across every entity in change set order.
    ///
    /// Before inserting an entity's rows, the rows that already hold their unique values are
    /// looked up, one `SELECT … WHERE "id" IN (?, …)` per 500 values (skipped when the table
    /// is empty), and a match updates or keeps that row instead (see `StoredMatchRule`).
    ///
    /// A value that names a row not written yet (`UnwrittenRow`: a relationship to a new row
    /// of an entity written later) is written as NULL and set once every insert is done; the
    /// relationships' foreign keys are checked at COMMIT.
    func save(_ changes: StoreChangeSet) throws -> SaveResult {
        if let readOnly {
            throw readOnly.saveRefused(path ?? ":memory:", entity: changes.entities.first?.entity.name)
        }
        try refuseInsideTransaction("a save", entity: changes.entities.first?.entity.name)
        return try withConnection { connection in
            var (result, tokens) = try committing(connection) { try write(changes, connection) }
            result.tokens = tokens
            return result
        }
    }

    /// The change set's rows, join rows and outbox entries, inside the caller's transaction.
    func write(_ changes: StoreChangeSet, _ connection: SQLiteConnection) throws -> SaveResult {
        var changes = changes
        let pendingEdits = try beginOutbox(changes.outbox, connection)
        // An insert it records that matches a stored row, and an update it records, send
        // only the columns they changed: compared with the row inside this transaction.
        for record in changes.outbox?.records ?? [] {
            switch record.row {
            case .inserted(let position, _) where position < changes.entities.count:
                changes.entities[position].comparesMatchedRows = true
            case .updated(let position, _, _) where position < changes.entities.count:
                changes.entities[position].comparesUpdatedRows = true
            default:
                break
            }
        }
        // A save that records no edits (a sync) keeps the rows whose edits wait, as this
        // transaction finds them: it chose what to delete before, and an edit may be newer.
        // The result says so: the context keeps their objects and reports no deletion.
        var kept: [Int: Set<Int64>] = [:]
        for position in changes.entities.indices where !changes.entities[position].deletes.isEmpty {
            guard let waiting = pendingEdits.waiting[changes.entities[position].entity.name] else { continue }
            let keeping = waiting.intersection(changes.entities[position].deletes)
            guard !keeping.isEmpty else { continue }
            kept[position] = keeping
            changes.entities[position].deletes.removeAll(where: keeping.contains)
        }
        // The kept rows by table: what the refusals below compare links with.
        var keptByTable: [String: Set<Int64>] = [:]
        for (position, rows) in kept {
            keptByTable[changes.entities[position].entity.name, default: []].formUnion(rows)
        }
        if !keptByTable.isEmpty { try refuseWritesDepending(on: keptByTable, in: changes, connection) }
        var result = try changes.write(with: SQLiteChangeWriter(store: self, connection: connection))
        // The lists' members are known once the inserts have row ids; refused, all rolls back.
        if !keptByTable.isEmpty { try refuseListsDropping(keptByTable, in: changes) }
        for (position, rows) in kept where position < result.entities.count {
            result.entities[position].keptDeletes = rows
        }
        try finishOutbox(changes.outbox, pendingEdits, result, connection)
        return result
    }

    /// Refuses a save that keeps deleted rows (`keptByTable`: their edits wait to be pushed) while it writes what their deletes' rules did to other rows: rows of a
    /// cascade deleted, links to a kept row set to NULL or elsewhere, a kept row left out of
    /// a many-to-many list. Written without the delete, those would take the kept row's
    /// children and links from it. Nothing is written; the error names both sides, and the
    /// saving context keeps its changes (a sync fetches again, and then leaves such a row).
    /// Read before the write changes them; lists are looked at after (`refuseListsDropping`).
    private func refuseWritesDepending(
        on keptByTable: [String: Set<Int64>], in changes: StoreChangeSet, _ connection: SQLiteConnection
    ) throws {
        for changed in changes.entities {
            let schema = changed.entity
            let linking = schema.columns.indices.filter {
                schema.columns[$0].references.map { keptByTable[$0] != nil } ?? false
            }
            guard !linking.isEmpty else { continue }
            var touched = changed.deletes
            for (row, rowID) in changed.updates.rowIDs.enumerated()
            where linking.contains(where: changed.updates.columnSets[row].contains) {
                touched.append(rowID)
            }
            try forEachLink(of: touched, in: schema, through: linking, connection) { rowID, table, target in
                guard keptByTable[table]!.contains(target) else { return }
                throw Self.keptRowConflict(table, target, schema.name, rowID)
            }
        }
        try refuseDeletesReachedFrom(keptByTable, in: changes, connection)
    }

    /// Calls `body` with each link that `rows` of `schema` hold in the `linking` columns (to-one
    /// foreign keys): the row, the table linked to and the row linked to, read 500 rows a query.
    private func forEachLink(
        of rows: [Int64], in schema: EntitySchema, through linking: [Int], _ connection: SQLiteConnection,
        _ body: (_ rowID: Int64, _ table: String, _ target: Int64) throws -> Void
    ) throws {
        for start in stride(from: 0, to: rows.count, by: filterBatchSize) {
            let batch = rows[start..<min(start + filterBatchSize, rows.count)]
            let sql = entitySQL(schema).select(linking, where: .rowIDs(count: batch.count), ordered: false)
            try connection.forEachRow(sql, batch.map { .integer($0) }) { row in
                for (offset, column) in linking.enumerated() where !row.isNull(Int32(offset + 1)) {
                    try body(row.int64(0), schema.columns[column].references!, row.int64(Int32(offset + 1)))
                }
            }
        }
    }

    /// Refuses a save that deletes rows a kept row reaches without their naming it: the
    /// targets of its own to-one columns (a `.cascade` to-one, or a parent deleted with the
    /// kept child that names it), and the rows a join table links it to (a many-to-many
    /// `.cascade`). Written, the kept row would name a row gone (the foreign key check fails
    /// at COMMIT) or lose its links and the rows with them.
    private func refuseDeletesReachedFrom(
        _ keptByTable: [String: Set<Int64>], in changes: StoreChangeSet, _ connection: SQLiteConnection
    ) throws {
        var deletedByTable: [String: Set<Int64>] = [:]
        var schemas: [String: EntitySchema] = [:]
        for changed in changes.entities {
            schemas[changed.entity.name] = changed.entity
            if !changed.deletes.isEmpty { deletedByTable[changed.entity.name, default: []].formUnion(changed.deletes) }
        }
        guard !deletedByTable.isEmpty else { return }
        // The kept rows' own links.
        for (table, rows) in keptByTable {
            guard let schema = schemas[table] else { continue }
            let linking = schema.columns.indices.filter {
                schema.columns[$0].references.map { deletedByTable[$0] != nil } ?? false
            }
            guard !linking.isEmpty else { continue }
            try forEachLink(of: Array(rows), in: schema, through: linking, connection) { rowID, target, targetRow in
                guard deletedByTable[target]!.contains(targetRow) else { return }
                throw Self.keptRowConflict(table, rowID, target, targetRow)
            }
        }
        // The join tables that link a kept row to a deleted one: the store's tables whose two
        // first columns go with the rows they reference.
        for joinSQL in sql.values {
            let columns = joinSQL.schema.columns
            guard columns.count >= 2, columns[0].cascades, columns[1].cascades,
                let first = columns[0].references, let second = columns[1].references
            else { continue }
            let join = joinSQL.schema.name
            let sides = [(column: columns[0].name, table: first), (column: columns[1].name, table: second)]
            try refuseJoinRows(of: join, sides, linking: keptByTable, to: deletedByTable, connection)
        }
    }

    /// The join rows of `join` that link a kept row on one side to a row the save deletes on
    /// the other refuse the save.
    private func refuseJoinRows(
        of join: String, _ columns: [(column: String, table: String)], linking keptByTable: [String: Set<Int64>],
        to deletedByTable: [String: Set<Int64>], _ connection: SQLiteConnection
    ) throws {
        for (keptSide, deletedSide) in [(columns[0], columns[1]), (columns[1], columns[0])] {
            guard let kept = keptByTable[keptSide.table], let deleted = deletedByTable[deletedSide.table] else {
                continue
            }
            let deletedRows = Array(deleted)
            for start in stride(from: 0, to: deletedRows.count, by: filterBatchSize) {
                let batch = deletedRows[start..<min(start + filterBatchSize, deletedRows.count)]
                let select =
                    "SELECT \(quoted(keptSide.column)), \(quoted(deletedSide.column)) FROM \(quoted(join)) WHERE "
                    + "\(quoted(deletedSide.column)) IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))"
                try connection.forEachRow(select, batch.map { .integer($0) }) { row in
                    guard kept.contains(row.int64(0)) else { return }
                    throw Self.keptRowConflict(keptSide.table, row.int64(0), deletedSide.table, row.int64(1))
                }
            }
        }
    }

    /// Refuses a save that writes a many-to-many list without a row it read there that the
    /// store keeps (see `refuseWritesDepending`): the delete took it from the list in memory.
    private func refuseListsDropping(_ keptByTable: [String: Set<Int64>], in changes: StoreChangeSet) throws {
        for write in changes.joinWrites {
            guard write.table.columns.count > 1, let table = write.table.columns[1].references,
                let rows = keptByTable[table], let known = write.known
            else { continue }
            let related = Set(try write.related())
            if let dropped = known.intersection(rows).first(where: { !related.contains($0) }) {
                throw Self.keptRowConflict(table, dropped, write.table.name, try write.owner())
            }
        }
    }

    /// The error of a save refused for writing what a kept delete did to a row referring to it.
    private static func keptRowConflict(_ table: String, _ rowID: Int64, _ dependent: String, _ dependentRow: Int64)
        -> StashError
    {
        StashError(
            .conflict,
            "the save deletes row \(rowID), whose edits wait to be pushed, so the store keeps it; it also "
                + "changes \(dependent) row \(dependentRow), which refers to it: nothing was written "
                + "(fetch again: a row whose edits wait is not deleted)",
            entity: table)
    }

    /// One owner's list as a change to the rows its context read (see `JoinWrite`): its join
    /// rows read inside the transaction (`SELECT "labels", "position" FROM "Issue_labels"
    /// WHERE "Issue" = ?`), then a `DELETE` per link removed, an `INSERT` per link added and
    /// an `UPDATE` per link whose place changed. Answers whether the stored list is not the
    /// one written: another writer's links were kept, or left out.
    func writeJoin(_ write: JoinWrite, _ insertedRows: InsertedRows, _ connection: SQLiteConnection) throws
        -> Bool
    {
        let table = quoted(write.table.name)
        let columns = write.table.columns.map { quoted($0.name) }
        let owner = try write.owner()
        let related = try write.related()
        var stored: [(member: Int64, place: Int64)] = []
        if !write.ownerIsNew || insertedRows.wasMatched(owner) {
            let select = try connection.statement(
                "SELECT \(columns[1]), \(columns[2]) FROM \(table) WHERE \(columns[0]) = ? ORDER BY \(columns[2]), \"_pk\""
            )
            select.reset()
            defer { select.reset() }
            try select.bind(.integer(owner), at: 1)
            while try select.step() { stored.append((select.int64(0), select.int64(1))) }
        }
        let plan = JoinPlan(write, related: related, stored: stored)
        if !plan.deletes.isEmpty {
            let delete = try connection.statement("DELETE FROM \(table) WHERE \(columns[0]) = ? AND \(columns[1]) = ?")
            for member in plan.deletes { try delete.run([.integer(owner), .integer(member)]) }
        }
        if !plan.inserts.isEmpty {
            let insert = try connection.statement(
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (?, ?, ?)")
            for (member, place) in plan.inserts {
                try insert.run([.integer(owner), .integer(member), .integer(place)])
            }
        }
        if !plan.moves.isEmpty {
            let move = try connection.statement(
                "UPDATE \(table) SET \(columns[2]) = ?1 WHERE \(columns[0]) = ?2 AND \(columns[1]) = ?3 AND \(columns[2]) IS NOT ?1"
            )
            for (member, place) in plan.moves { try move.run([.integer(place), .integer(owner), .integer(member)]) }
        }
        return plan.differsFromWritten
    }

    /// `UPDATE "Comment" SET "post_position" = ?1 WHERE "_pk" = ?2 AND "post_position" IS NOT ?1`,
    /// one statement per column for all its lists: a list saved again in the same order
    /// writes nothing.
    func writePositions(_ writes: [PositionWrite], _ result: SaveResult, _ connection: SQLiteConnection)
        throws
    {
        var columns: [String] = []
        var byColumn: [String: [PositionWrite]] = [:]
        for write in writes {
            let key = "\(quoted(write.table.name)).\(quoted(write.column))"
            if byColumn[key] == nil { columns.append(key) }
            byColumn[key, default: []].append(write)
        }
        for key in columns {
            let group = byColumn[key]!
            let table = group[0].table.name
            let column = quoted(group[0].column)
            try inPlace(table) {
                let update = try connection.statement(
                    "UPDATE \(quoted(table)) SET \(column) = ?1 WHERE \"_pk\" = ?2 AND \(column) IS NOT ?1")
                for write in group {
                    // A row whose relationship was found to hold its value already did not move.
                    let unchanged = write.unlessUnchanged.map { result.entities[$0.entity].unchangedColumns } ?? [:]
                    let relationship = write.unlessUnchanged?.column ?? 0
                    for place in try write.places() where unchanged[place.rowID]?.contains(relationship) != true {
                        try update.run([place.position.map(StoredValue.integer) ?? .null, .integer(place.rowID)])
                    }
                }
            }
        }
    }

    func deleteRows(of changes: EntityChanges, _ connection: SQLiteConnection) throws {
        let statement = try connection.statement(entitySQL(changes.entity).deleteByKey)
        for rowID in changes.deletes {
            try statement.run([.integer(rowID)])
        }
    }

    func updateRows(
        of changes: EntityChanges, at position: Int, _ result: inout EntitySaveResult, _ later: inout LaterWrites,
        _ connection: SQLiteConnection
    ) throws {
        var updater = RowUpdater(entity: entitySQL(changes.entity))
        defer { updater.finish() }
        let updates = changes.updates
        var columnSets = updates.columnSets
        let expected = changes.onConflict == .overwrite ? nil : updates.expected
        if expected != nil || !updates.checkedSets.isEmpty || changes.comparesUpdatedRows {
            try compareWithStoredRows(of: changes, expected, &columnSets, &result, connection)
        }
        for row in 0..<updates.count {
            guard !columnSets[row].isEmpty else {
                result.unwrittenUpdates.insert(row)
                continue
            }
            let rowID = updates.rowIDs[row]
            try updater.update(
                rowID, setting: columnSets[row],
                to: { column in try later.value(of: updates, row, entity: position, rowID: rowID, column: column) },
                in: self, connection)
        }
    }

    /// Reads, inside the save's transaction, the stored values of the columns the updates
    /// compare, and takes out of each row's `columnSets` what need not be written (see
    /// `StoredRowComparison`). Comparing here, under the write lock, rather than before
    /// `BEGIN`, is what keeps a commit by another process in between from leaving a row that
    /// no save wrote.
    private func compareWithStoredRows(
        of changes: EntityChanges, _ expected: ((Int, Int) -> StoredValue?)?, _ columnSets: inout [AttributeSet],
        _ result: inout EntitySaveResult, _ connection: SQLiteConnection
    ) throws {
        var comparison = StoredRowComparison(changes, expected: expected, columnSets: columnSets)
        let rowIDs = comparison.rowIDs
        let entitySQL = entitySQL(changes.entity)
        for start in stride(from: 0, to: rowIDs.count, by: filterBatchSize) {
            let batch = rowIDs[start..<min(start + filterBatchSize, rowIDs.count)].map { StoredValue.integer($0) }
            let sql = entitySQL.select(comparison.read, where: .rowIDs(count: batch.count), ordered: false)
            try connection.forEachRow(sql, batch) { statement in
                try comparison.compare(
                    rowID: statement.int64(0), { statement.column(Int32($0 + 1)) },
                    holds: { statement.column(Int32($0 + 1), holds: $1) }, &columnSets, &result)
            }
        }
        try comparison.finish()
    }

    func insertRows(
        of changes: EntityChanges, at position: Int, into result: inout EntitySaveResult, _ inserted: InsertedRows,
        _ later: inout LaterWrites, _ connection: SQLiteConnection
    ) throws {
        let inserts = changes.inserts
        guard !inserts.isEmpty else { return }
        let entitySQL = entitySQL(changes.entity)
        result.insertedRowIDs = Array(repeating: 0, count: inserts.count)
        result.matches = Array(repeating: nil, count: inserts.count)
        var pending = Array(0..<inserts.count)
        if changes.matchesStoredRows, !changes.entity.uniqueColumns.isEmpty,
            try connection.integer(entitySQL.anyRow) != 0
        {
            pending = try matchStoredRows(of: changes, at: position, pending, &result, inserted, &later, connection)
        }
        let columnCount = changes.entity.columns.count
        let positionColumns = entitySQL.schema.positionColumns
        let width = columnCount + positionColumns.count
        // Rows go in statements of `batch` rows (the rest one by one), so AUTOINCREMENT's
        // read and write of sqlite_sequence happen once a statement, not once a row (import
        // write 914M -> 777M instructions at 20,000 records under callgrind). The rows of
        // one statement get consecutive ids ending at the last one: no `_pk` is given, and
        // the one writer holds the write lock. A value naming a row of the same statement
        // is written once every insert is done (`UnwrittenRow`).
        let arena = BindArena()
        var start = 0
        while start < pending.count {
            let batch = entitySQL.batchInsert.flatMap { pending.count - start >= $0.rows ? $0 : nil }
            let count = batch?.rows ?? 1
            let statement = try connection.statement(batch?.sql ?? entitySQL.insert)
            // Reset (its bindings cleared) before the arena's copies are let go or written over.
            defer {
                statement.reset()
                arena.rewind()
            }
            statement.rewind()
            var unwritten: [(Int, Int)] = []
            for offset in 0..<count {
                let row = pending[start + offset]
                let base = Int32(offset * width)
                for column in 0..<columnCount {
                    let value: StoredValue
                    do {
                        value = try inserts.value(row, column)
                    } catch is UnwrittenRow {
                        value = .null
                        unwritten.append((offset, column))
                    }
                    try statement.bind(value, at: base + Int32(column + 1), copyingInto: arena)
                }
                for (index, name) in positionColumns.enumerated() {
                    try statement.bind(
                        try inserts.position?(row, name) ?? .null, at: base + Int32(columnCount + index + 1))
                }
            }
            while try statement.step() {}
            let last = connection.lastInsertedRowID
            for offset in 0..<count {
                let row = pending[start + offset]
                let rowID = last - Int64(count - 1 - offset)
                result.insertedRowIDs[row] = rowID
                inserted.record(entity: position, row: row, rowID: rowID)
            }
            for (offset, column) in unwritten {
                let row = pending[start + offset]
                later.add(entity: position, rowID: last - Int64(count - 1 - offset), column: column) {
                    try inserts.value(row, column)
                }
            }
            start += count
        }
    }

    /// Finds the stored rows that the inserts' unique values already name and applies the
    /// change set's `onStoredMatch` rule to each. Returns the inserts that really are new.
    ///
    /// Reads only the key, the unique column and the columns some insert was not given
    /// (all of them under `.keepStored`, and for inserts the outbox records: see
    /// `EntityChanges.comparesMatchedRows`): a re-import that sets every attribute reads two.
    private func matchStoredRows(
        of changes: EntityChanges, at position: Int, _ candidates: [Int], _ result: inout EntitySaveResult,
        _ inserted: InsertedRows, _ later: inout LaterWrites, _ connection: SQLiteConnection
    ) throws -> [Int] {
        let entity = changes.entity
        let inserts = changes.inserts
        let columnCount = entity.columns.count
        // An insert the outbox records is compared with the row: only what changed is sent.
        let compares = changes.onStoredMatch == .update && changes.comparesMatchedRows
        var wanted: [Int]
        if changes.onStoredMatch == .keepStored || compares {
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
                if compares {
                    var unchanged = AttributeSet()
                    for (column, value) in zip(wanted, stored) where column != unique && given.contains(column) {
                        // A value naming a row not written yet (`UnwrittenRow`) is new to it.
                        let written: StoredValue?
                        do {
                            written = try inserts.value(row, column)
                        } catch is UnwrittenRow {
                            written = nil
                        }
                        if written == value { unchanged.insert(column) }
                    }
                    if !unchanged.isEmpty { result.unchangedMatchColumns[row] = unchanged }
                }
                if changes.onStoredMatch == .update {
                    // The row was found by this value: setting it again would only make
                    // SQLite rewrite the unique index entry.
                    var written = given
                    written.remove(unique)
                    try updater.update(
                        rowID, setting: written,
                        to: { column in
                            try later.value(of: inserts, row, entity: position, rowID: rowID, column: column)
                        }, in: self, connection)
                }
                result.insertedRowIDs[row] = rowID
                inserted.record(entity: position, row: row, rowID: rowID)
                inserted.recordMatch(rowID: rowID)
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

/// Values that named rows not written yet (`UnwrittenRow`), written as NULL at first and set
/// once every insert is done, one `UPDATE` each.
struct LaterWrites {
    private var writes: [(entity: Int, rowID: Int64, column: Int, value: () throws -> StoredValue)] = []

    mutating func add(entity: Int, rowID: Int64, column: Int, _ value: @escaping () throws -> StoredValue) {
        writes.append((entity, rowID, column, value))
    }

    /// The value `rows` gives `row` at `column`, or NULL for now when it names a row not
    /// written yet (then it is written later). The closure that writes it later is made only
    /// then: made for every value, with the copy of `rows` it captures, it cost an edit of
    /// 20,000 objects 6% (stash-bench under callgrind).
    mutating func value(of rows: RowWrites, _ row: Int, entity: Int, rowID: Int64, column: Int) throws
        -> StoredValue
    {
        do {
            return try rows.value(row, column)
        } catch is UnwrittenRow {
            add(entity: entity, rowID: rowID, column: column) { try rows.value(row, column) }
            return .null
        }
    }

    func write(
        _ changes: StoreChangeSet, _ result: SaveResult, in store: SQLiteStore, _ connection: SQLiteConnection
    ) throws {
        for write in writes {
            let entity = changes.entities[write.entity].entity
            var updater = RowUpdater(entity: store.entitySQL(entity))
            defer { updater.finish() }
            var columns = AttributeSet()
            columns.insert(write.column)
            try inPlace(entity.name) {
                let value: StoredValue
                do {
                    value = try write.value()
                } catch is UnwrittenRow {
                    throw StashError(.storeFailed, "a relationship names a new row that this save does not write")
                }
                try updater.update(write.rowID, setting: columns, to: { _ in value }, in: store, connection)
            }
        }
    }
}
