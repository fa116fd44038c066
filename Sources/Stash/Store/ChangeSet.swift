/// Everything one `save()` writes, per entity, as backend-neutral values: the store applies
/// it in one transaction and answers with a `SaveResult`.
struct ChangeSet {
    var entities: [EntityChanges] = []

    var isEmpty: Bool { entities.allSatisfy(\.isEmpty) }
}

/// One entity's part of a change set: rows to delete, rows to update (only the columns that
/// changed) and new rows. A store applies deletes first, then updates, then inserts, each
/// across all entities in change set order.
struct EntityChanges {
    let entity: EntitySchema
    /// Rows to delete, by row id.
    var deletes: [Int64] = []
    /// Rows to update.
    var updates = RowWrites()
    /// New rows, every column. Before inserting, a store looks for stored rows that
    /// already hold an insert's unique values; see `onStoredMatch`.
    var inserts = RowWrites()
    /// What an insert whose unique value a stored row holds does instead.
    var onStoredMatch = StoredMatchRule.update

    init(entity: EntitySchema) { self.entity = entity }

    var isEmpty: Bool { deletes.isEmpty && updates.isEmpty && inserts.isEmpty }
}

/// What an insert does when a stored row already holds one of its unique values.
enum StoredMatchRule {
    /// Update that row with the columns the insert was given (not the matched unique one)
    /// and report the stored values of the others (`MergePolicy.incomingWins`).
    case update
    /// Leave the row as it is and report all its stored values (`.storedWins`).
    case keepStored
    /// Fail the whole save with a `uniqueConflict` error (`.fail`).
    case fail
}

/// Rows to write, stored flat: per row an id (updates), the columns it sets and their values
/// in column order, all in shared arrays so a save of many rows allocates a few arrays, not
/// a few per row.
struct RowWrites {
    /// Updates: the row each write targets. Inserts: unused.
    private(set) var rowIDs: [Int64] = []
    /// Updates: the columns written. Inserts: the columns the object was given a value for
    /// (every column is written; these are what a match updates).
    private(set) var columnSets: [AttributeSet] = []
    private(set) var values: [StoredValue] = []
    private var starts: [Int] = []

    var count: Int { columnSets.count }
    var isEmpty: Bool { columnSets.isEmpty }

    mutating func reserveCapacity(rows: Int, values valueCount: Int) {
        columnSets.reserveCapacity(rows)
        starts.reserveCapacity(rows)
        values.reserveCapacity(valueCount)
    }

    /// Adds a row: `rowValues` are the values of `columns` (updates) or of every column
    /// (inserts), in column order.
    mutating func append(rowID: Int64 = 0, columns: AttributeSet, values rowValues: some Sequence<StoredValue>) {
        rowIDs.append(rowID)
        columnSets.append(columns)
        starts.append(values.count)
        values.append(contentsOf: rowValues)
    }

    /// Starts a row whose values follow with `appendValue`.
    mutating func beginRow(rowID: Int64 = 0, columns: AttributeSet) {
        rowIDs.append(rowID)
        columnSets.append(columns)
        starts.append(values.count)
    }

    mutating func appendValue(_ value: StoredValue) {
        values.append(value)
    }

    /// The values of row `index`.
    func values(ofRow index: Int) -> ArraySlice<StoredValue> {
        let end = index + 1 < starts.count ? starts[index + 1] : values.count
        return values[starts[index]..<end]
    }
}
