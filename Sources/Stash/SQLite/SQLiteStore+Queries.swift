import Foundation

/// Queries with a predicate, exclusions or an order: one statement each, rendered by
/// `QueryRenderer`, every value a bound parameter.
extension SQLiteStore {
    func fetchRendered(
        _ query: StoreQuery, _ tokenLook: inout TokenLook, _ look: (Int64?) throws -> Bool,
        _ body: (any StoreRow) throws -> Void
    ) throws {
        let sql = renderedSelect(query)
        try readRows(sql.text, sql.parameters, of: query.entity.name, &tokenLook, look, body)
    }

    /// The look-up by one value, through the text `EntitySQL.selectWhereEqual` made once: the
    /// query `renderedSelect` would render, without the query.
    func fetch(
        _ entity: EntitySchema, whereColumn column: Int, equals value: StoredValue,
        lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws {
        let texts = entitySQL(entity).selectWhereEqual
        var tokenLook = TokenLook(taking: true)
        if column < texts.count {
            try readRows(texts[column].plain, [value], of: entity.name, &tokenLook, look, body)
        } else {
            try fetchRendered(StoreQuery(entity, predicate: .columnEquals(column, value)), &tokenLook, look, body)
        }
        try tokenLook.finish(self, look)
    }

    /// Runs the SELECT `text` with `parameters` on a reader and calls `body` with each row.
    private func readRows(
        _ text: String, _ parameters: [StoredValue], of entityName: String, _ tokenLook: inout TokenLook,
        _ look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws {
        try withReader { connection in
            try inPlace(entityName) {
                let statement = try connection.statement(text)
                defer { statement.reset() }
                try statement.bind(parameters)
                let row = SQLiteRow(statement)
                while try tokenLook.step(statement, on: connection, of: self, look) {
                    try body(row)
                }
            }
        }
    }

    func countRendered(_ query: StoreQuery) throws -> Int {
        let sql = renderedCount(query)
        return try withReader { connection in
            try inPlace(query.entity.name) { Int(try connection.integer(sql.text, sql.parameters)) }
        }
    }

    /// ```sql
    /// SELECT "_pk", "id", "title" FROM "Post" WHERE ("read" <> ?) ORDER BY "publishedAt" DESC, "_pk" LIMIT ? OFFSET ?
    /// ```
    func renderedSelect(_ query: StoreQuery) -> (text: String, parameters: [StoredValue]) {
        let entitySQL = entitySQL(query.entity)
        // The look-up by one value (`#Predicate { $0.id == id }`): its text is made once per
        // column; rendering it each time was 12% of a look-up's instructions.
        if query.columns == nil, case .all = query.filter, query.excludedRowIDs.isEmpty, query.sort.isEmpty,
            query.listPosition == nil,
            case .compare(.column(let column), .equal, .value(let value), .stored)? =
                query.predicate, column < entitySQL.selectWhereEqual.count
        {
            let texts = entitySQL.selectWhereEqual[column]
            guard query.limit != nil || query.offset != nil else { return (texts.plain, [value]) }
            // The limit's parameters as the renderer binds them, which `limited` was made by.
            var limits = QueryRenderer(query.entity)
            limits.writeLimit(query)
            return (texts.limited, [value] + limits.parameters)
        }
        return Self.renderSelect(query, selectingAll: entitySQL.selectAllColumns)
    }

    /// ```sql
    /// SELECT "_pk", "id", "title" FROM "Post" WHERE ("read" <> ?) ORDER BY "publishedAt" DESC, "_pk" LIMIT ? OFFSET ?
    /// ```
    static func renderSelect(_ query: StoreQuery, selectingAll: String) -> (text: String, parameters: [StoredValue]) {
        let select: String
        if query.columns == nil {
            select = selectingAll
        } else {
            let columns = (["_pk"] + query.selectedColumns.map { query.entity.columns[$0].name }).map(quoted)
            select = "SELECT \(columns.joined(separator: ", ")) FROM \(quoted(query.entity.name))"
        }
        var renderer = QueryRenderer(query.entity, startingWith: select)
        renderer.writeWhere(query)
        renderer.writeOrderBy(query.sort, listPosition: query.listPosition)
        renderer.writeLimit(query)
        return (renderer.text, renderer.parameters)
    }

    /// `SELECT count(*) FROM "Post" WHERE …`; with a limit or an offset, of the page.
    func renderedCount(_ query: StoreQuery) -> (text: String, parameters: [StoredValue]) {
        let table = quoted(query.entity.name)
        let limited = query.limit != nil || query.offset != nil
        var renderer = QueryRenderer(
            query.entity,
            startingWith: limited ? "SELECT count(*) FROM (SELECT 1 FROM \(table)" : "SELECT count(*) FROM \(table)")
        renderer.writeWhere(query)
        guard limited else { return (renderer.text, renderer.parameters) }
        renderer.writeLimit(query)
        return (renderer.text + ")", renderer.parameters)
    }

    /// What `EXPLAIN QUERY PLAN` says of the query's SELECT, one line per step, as the
    /// `sqlite3` shell shows it: `SEARCH Post USING INDEX Post_id_unique (id=?)`.
    func queryPlan(_ query: StoreQuery) throws -> [String] {
        let sql = renderedSelect(query)
        return try withReader { connection in
            var details: [String] = []
            try connection.forEachRow("EXPLAIN QUERY PLAN " + sql.text, sql.parameters) { row in
                if case .text(let detail) = row.column(3) { details.append(detail) }
            }
            return details
        }
    }
}
