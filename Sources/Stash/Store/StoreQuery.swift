/// What to read from a store, as a value: the entity, which columns, which rows, in what
/// order, how many.
///
/// Rows come back in `sort` order, ties (and a query without sort) in row id order, so a page
/// is stable. Only `Store` implementations turn a query into their own language (SQL for
/// `SQLiteStore`).
package struct StoreQuery {
    package let entity: EntitySchema
    /// Positions in `entity.columns` to read; `nil` reads them all.
    package var columns: [Int]?
    package var filter: Filter = .all
    /// A condition rows must meet too (a translated predicate).
    package var predicate: QueryExpression?
    /// Rows to leave out: a context's unsaved changes stand in for them.
    package var excludedRowIDs: [Int64] = []
    package var sort: [QuerySort] = []
    /// A list position column (`EntitySchema.positionColumns`) that orders the rows before
    /// `sort`; rows without a position come after the others.
    package var listPosition: String?
    package var limit: Int?
    package var offset: Int?

    /// `true` when only a filter, a limit and an offset say which rows: the query a store can
    /// split into batches.
    package var isPlain: Bool { predicate == nil && excludedRowIDs.isEmpty && sort.isEmpty && listPosition == nil }

    package init(_ entity: EntitySchema, columns: [Int]? = nil, filter: Filter = .all) {
        self.entity = entity
        self.columns = columns
        self.filter = filter
    }

    /// A query of every column, as a fetch descriptor translates to.
    init(
        _ entity: EntitySchema, predicate: QueryExpression?, sort: [QuerySort] = [], limit: Int? = nil,
        offset: Int? = nil
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Which rows.
    package enum Filter {
        case all
        /// The rows with these row ids (any number of them).
        case rowIDs([Int64])
        /// The rows whose column at this position holds one of these values (any number).
        case values(column: Int, [StoredValue])
    }

    /// The positions read, in order.
    package var selectedColumns: [Int] { columns ?? Array(entity.columns.indices) }
}
