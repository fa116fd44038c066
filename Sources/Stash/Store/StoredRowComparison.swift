/// What a store reads, inside a save's transaction, to compare updates with their rows, and
/// the comparison itself: the same for every store, which only reads the rows (see
/// `SQLiteStore.compareWithStoredRows`, `PostgresStore.compareWithStoredRows`).
///
/// A row read takes out of its `columnSets` what need not be written:
/// - a checked column (`RowWrites.checkedSets`), or any column written under
///   `EntityChanges.comparesUpdatedRows`, that already holds the value written;
/// - under `.keepStored` and `.fail`, a column whose stored value is no longer what its
///   object last saw (`expected`): another context or process changed it since. That fails
///   the save, or is left as stored and reported, as `onConflict` says.
package struct StoredRowComparison {
    let changes: EntityChanges
    let expected: ((Int, Int) -> StoredValue?)?
    /// The columns to read, in the order the store hands them to `compare`.
    package let read: [Int]
    /// The rows to read, in row id order.
    package let rowIDs: [Int64]
    /// The update of each of `rowIDs` (the last, should two name one row).
    private let updateRows: [Int]
    /// Whether each of `rowIDs` was read.
    private var found: [Bool]
    /// Where in `rowIDs` the next row read is looked for first: stores read them in order,
    /// as a rule. Found by position, not hashed: a table and a set of row ids cost about 500
    /// instructions an edited row (stash-bench's edit, callgrind).
    private var next = 0

    package init(
        _ changes: EntityChanges, expected: ((Int, Int) -> StoredValue?)?, columnSets: [AttributeSet]
    ) {
        self.changes = changes
        self.expected = expected
        let updates = changes.updates
        let columnCount = changes.entity.columns.count
        let compares = changes.comparesUpdatedRows
        let rows = (0..<updates.count).filter { expected != nil || compares || !updates.checked($0).isEmpty }
        // Read whole when some objects have not loaded the rest (decoded for a row never
        // read): they take it from here (`storedRows`).
        read =
            updates.readsWholeRows
            ? Array(0..<columnCount)
            : rows.reduce(AttributeSet()) { columns, row in
                columns.union(expected != nil || compares ? columnSets[row] : updates.checked(row))
            }.positions(below: columnCount)
        var pairs = rows.map { (rowID: updates.rowIDs[$0], row: $0) }
        // Updates are planned in the order objects were loaded, row id order as a rule.
        if !zip(pairs, pairs.dropFirst()).allSatisfy({ $0.rowID < $1.rowID }) {
            pairs.sort { $0.rowID != $1.rowID ? $0.rowID < $1.rowID : $0.row < $1.row }
        }
        var rowIDs: [Int64] = []
        var updateRows: [Int] = []
        rowIDs.reserveCapacity(pairs.count)
        updateRows.reserveCapacity(pairs.count)
        for pair in pairs {
            if rowIDs.last == pair.rowID {
                updateRows[updateRows.count - 1] = pair.row
            } else {
                rowIDs.append(pair.rowID)
                updateRows.append(pair.row)
            }
        }
        self.rowIDs = rowIDs
        self.updateRows = updateRows
        found = Array(repeating: false, count: rowIDs.count)
    }

    /// The position of `rowID` in `rowIDs`, if it is one of them.
    private func position(of rowID: Int64) -> Int? {
        rowIDs.position(ofSorted: rowID, hint: next)
    }

    /// Compares the row `rowID` as read: `value(offset)` is the stored value of `read[offset]`,
    /// `holds(offset, value)` whether it is `value` (as `value(offset) == value` answers, and
    /// may answer without making the stored value: see `SQLiteStatement.column(_:holds:)`).
    package mutating func compare(
        rowID: Int64, _ value: (Int) -> StoredValue, holds: (Int, StoredValue) -> Bool,
        _ columnSets: inout [AttributeSet], _ result: inout EntitySaveResult
    ) throws {
        guard let position = position(of: rowID) else { return }
        next = position + 1
        found[position] = true
        let row = updateRows[position]
        let updates = changes.updates
        let entity = changes.entity
        let checked = updates.checked(row)
        // For an outbox that sends only what changed, every column written is compared.
        let compared = changes.comparesUpdatedRows ? columnSets[row] : checked
        // A row read whole is for what its object has not loaded: only those columns are
        // made into values (reading a text column makes a String; every column of every row
        // cost a quarter of stash-bench's re-import write).
        if !checked.isEmpty, updates.readsWholeRows {
            let unloaded = updates.unloaded?(row) ?? AttributeSet.all(read.count)
            // Room for every row read at the first: grown a doubling at a time, the table
            // rehashed 15 times in a 20,000-row re-import (3.8M instructions, callgrind).
            if result.storedRows.isEmpty { result.storedRows.reserveCapacity(rowIDs.count) }
            result.storedRows[row] = read.indices.map { unloaded.contains(read[$0]) ? value($0) : .null }
        }
        var conflicting: [Int: StoredValue] = [:]
        var unchanged = AttributeSet()
        for (offset, column) in read.enumerated() where columnSets[row].contains(column) {
            if let seen = expected?(row, column), !holds(offset, seen) {
                conflicting[column] = value(offset)
            } else if compared.contains(column), let written = try? updates.value(row, column), holds(offset, written) {
                columnSets[row].remove(column)
                unchanged.insert(column)
            }
        }
        if !unchanged.isEmpty {
            result.unchangedColumns[rowID] = (result.unchangedColumns[rowID] ?? AttributeSet()).union(unchanged)
        }
        guard !conflicting.isEmpty else { return }
        if changes.onConflict == .fail {
            let names = conflicting.keys.sorted().map { entity.columns[$0].name }
            throw StashError(
                .conflict,
                "row \(rowID) changed in the store since this context loaded it "
                    + "(\(names.joined(separator: ", "))) and the merge policy is .fail; nothing was saved",
                entity: entity.name, attribute: names[0])
        }
        for column in conflicting.keys { columnSets[row].remove(column) }
        result.keptStored[row] = conflicting
    }

    /// Throws if a row to compare was not read: deleted since its object loaded it.
    package func finish() throws {
        if let missing = found.firstIndex(of: false) {
            throw StashError(
                .rowMissing, "the row \(rowIDs[missing]) was deleted since this object was loaded; nothing was saved",
                entity: changes.entity.name)
        }
    }
}
