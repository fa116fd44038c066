/// What to read from a store, as a value: the entity, which columns, which rows, how many.
///
/// Rows come back in row id order, so a page is stable. Only `Store` implementations turn a
/// query into their own language (SQL for `SQLiteStore`).
struct StoreQuery {
    let entity: EntitySchema
    /// Positions in `entity.columns` to read; `nil` reads them all.
    var columns: [Int]?
    var filter: Filter = .all
    var limit: Int?
    var offset: Int?

    init(_ entity: EntitySchema, columns: [Int]? = nil, filter: Filter = .all) {
        self.entity = entity
        self.columns = columns
        self.filter = filter
    }

    /// Which rows.
    enum Filter {
        case all
        /// The rows with these row ids (any number of them).
        case rowIDs([Int64])
        /// The rows whose column at this position holds one of these values (any number).
        case values(column: Int, [StoredValue])
    }

    /// The positions read, in order.
    var selectedColumns: [Int] { columns ?? Array(entity.columns.indices) }
}
