/// Runs `UPDATE "Post" SET <columns> WHERE "_pk" = ?` for row after row, keeping the
/// prepared statement while consecutive rows set the same columns.
struct RowUpdater {
    let entity: EntitySQL
    private var columns = AttributeSet()
    private var statement: SQLiteStatement?
    /// Where a row's text is bound from; rewound for the next row, whose binds replace every
    /// one of the last (`finish()` resets the statement before the arena goes).
    private let arena = BindArena()

    init(entity: EntitySQL) { self.entity = entity }

    /// Writes `columns` of row `rowID`, each column's value from `value`. A row that is gone
    /// is a `rowMissing` error.
    mutating func update(
        _ rowID: Int64, setting columns: AttributeSet, to value: (Int) throws -> StoredValue,
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
        arena.rewind()
        var index: Int32 = 1
        for column in 0..<entity.schema.columns.count where columns.contains(column) {
            try statement.bind(value(column), at: index, copyingInto: arena)
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
