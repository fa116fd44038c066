import Stash

/// Values that named rows not written yet (`UnwrittenRow`): written as NULL at first, and
/// set once every insert is done, one `UPDATE` each, sent together (foreign keys are
/// checked at COMMIT).
struct PostgresLaterWrites {
    private var writes: [(entity: Int, rowID: Int64, column: Int, value: () throws -> StoredValue)] = []

    /// The value, or NULL for now when it names a row not written yet.
    mutating func value(of rows: RowWrites, _ row: Int, entity: Int, rowID: Int64, column: Int) throws
        -> StoredValue
    {
        do {
            return try rows.value(row, column)
        } catch is UnwrittenRow {
            // Made only now: a closure made for every value copied `rows` into each.
            writes.append((entity, rowID, column, { try rows.value(row, column) }))
            return .null
        }
    }

    func write(_ changes: StoreChangeSet, _ connection: PostgresConnection) throws {
        var batch = PostgresUpdateBatch()
        for write in writes {
            let entity = changes.entities[write.entity].entity
            try inPlace(entity.name) {
                let value: StoredValue
                do {
                    value = try write.value()
                } catch is UnwrittenRow {
                    throw StashError(.storeFailed, "a relationship names a new row that this save does not write")
                }
                batch.update(entity, write.rowID, [write.column], [value])
            }
        }
        try batch.send(connection)
    }
}
