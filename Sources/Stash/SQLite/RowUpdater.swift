/// Runs `UPDATE "Post" SET <columns> WHERE "_pk" = ?` for row after row, keeping the
/// prepared statement while consecutive rows set the same columns.
struct RowUpdater {
    let entity: EntitySQL
    private var columns = AttributeSet()
    private var statement: SQLiteStatement?

    init(entity: EntitySQL) { self.entity = entity }

    /// Writes `values` to row `rowID`: one per column in `columns`, in column order, or,
    /// with `fromFullRow`, a value for every column of which those in `columns` are written.
    /// A row that is gone is a `rowMissing` error.
    mutating func update(
        _ rowID: Int64, setting columns: AttributeSet, to values: ArraySlice<StoredValue>, fromFullRow: Bool = false,
        in store: SQLiteStore, _ connection: SQLiteConnection
    ) throws {
        guard !columns.isEmpty else { return }
        if statement == nil || columns != self.columns {
            statement?.reset()
            self.columns = columns
            statement = try connection.statement(store.updateSQL(entity, columns))
        }
        guard let statement else { return }
        statement.rewind()
        var index: Int32 = 1
        for (position, value) in values.enumerated() where !fromFullRow || columns.contains(position) {
            try statement.bind(value, at: index)
            index += 1
        }
        try statement.bind(.integer(rowID), at: index)
        while try statement.step() {}
        guard connection.changes == 1 else {
            throw StashError(
                .rowMissing, "the row \(rowID) was deleted since this object was loaded; nothing was saved",
                entity: entity.schema.name)
        }
    }

    func finish() {
        statement?.reset()
    }
}
