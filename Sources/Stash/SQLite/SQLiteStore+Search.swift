/// Full-text search over an entity's FTS5 index (`SearchSQL`), one statement per search.
extension SQLiteStore {
    func search(_ query: SearchQuery, _ body: (any StoreRow, SearchRow) throws -> Void) throws {
        let sql = try renderedSearch(query)
        let scoreColumn = Int32(query.rows.entity.columns.count + 1)
        try withReader { connection in
            try inPlace(query.rows.entity.name) {
                let statement = try connection.statement(sql.text)
                defer { statement.reset() }
                try statement.bind(sql.parameters)
                let row = SQLiteRow(statement)
                while try statement.step() {
                    let snippet = statement.isNull(scoreColumn + 1) ? "" : statement.text(scoreColumn + 1)
                    try body(row, SearchRow(score: statement.double(scoreColumn), snippet: snippet))
                }
            }
        }
    }

    /// The rows of the entity's table joined to the index's matches, ranked: every column,
    /// then the score and the snippet.
    ///
    /// ```sql
    /// SELECT "_pk", "id", "title", "body", "_stash_score", "_stash_snippet" FROM "Post"
    ///     JOIN (SELECT "rowid" AS "_stash_key", -bm25("Post_search") AS "_stash_score",
    ///         snippet("Post_search", -1, ?, ?, ?, ?) AS "_stash_snippet"
    ///         FROM "Post_search" WHERE "Post_search" MATCH ?) ON "_pk" = "_stash_key"
    ///     WHERE ("id" > ?) ORDER BY "_stash_score" DESC, "_pk" LIMIT ? OFFSET ?
    /// ```
    ///
    /// The matches are a subquery, so the predicate's bare column names are the entity
    /// table's alone (the index has columns of the same names).
    func renderedSearch(_ query: SearchQuery) throws -> (text: String, parameters: [StoredValue]) {
        let entity = query.rows.entity
        guard let search = SearchSQL(entity) else {
            throw StashError(
                .unsupportedQuery, "search needs an attribute declared @Attribute(.searchable)", entity: entity.name)
        }
        let index = quoted(search.table)
        let columns = (["_pk"] + entity.columns.map(\.name)).map(quoted).joined(separator: ", ")
        let options = query.options
        let start =
            "SELECT \(columns), \"_stash_score\", \"_stash_snippet\" FROM \(quoted(entity.name)) "
            + "JOIN (SELECT \"rowid\" AS \"_stash_key\", -bm25(\(index)) AS \"_stash_score\", "
            + "snippet(\(index), -1, ?, ?, ?, ?) AS \"_stash_snippet\" FROM \(index) WHERE \(index) MATCH ?) "
            + "ON \"_pk\" = \"_stash_key\""
        let parameters: [StoredValue] = [
            .text(options.snippetMarkers.start), .text(options.snippetMarkers.end), .text(options.snippetEllipsis),
            .integer(Int64(min(max(options.snippetWords, 1), 64))),
            .text(SearchSQL.matchExpression(query.terms, lastIsPrefix: options.prefixMatchesLastWord)),
        ]
        var renderer = QueryRenderer(entity, startingWith: start)
        renderer.writeWhere(query.rows)
        renderer.writeOrderBy(query.rows.sort, first: "\"_stash_score\" DESC")
        renderer.writeLimit(query.rows)
        return (renderer.text, parameters + renderer.parameters)
    }
}
