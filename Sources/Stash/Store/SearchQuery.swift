/// A full-text search as a value: the rows of a `StoreQuery` (its predicate, exclusions,
/// sort, limit and offset) that hold every term, best match first.
///
/// The terms are the user's words, never a query language: a store matches each one as
/// it is (quoted, in SQLite's FTS5), so no text can be a syntax error.
package struct SearchQuery {
    /// The entity, which rows may match (`predicate`, `excludedRowIDs`), the tie-breaking
    /// `sort`, `limit` and `offset`.
    package var rows: StoreQuery
    /// The words every hit holds, in the order given; never empty.
    package var terms: [String]
    /// Whether the last term matches as a prefix, and how the snippet marks what matched.
    package var options: SearchOptions
}

/// A store's answer for one hit: the row, its relevance (higher is better) and its snippet.
package struct SearchRow {
    package let score: Double
    package let snippet: String
}
