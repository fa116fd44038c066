import Testing

@testable import Stash

/// The SQL `QueryRenderer` writes for PostgreSQL, as asserted text.
@Suite struct PostgresSQLTests {
    static let post = EntitySchema(
        name: "Post",
        columns: [
            ColumnSchema(
                name: "id", type: .integer, isOptional: false, isUnique: true, isIndexed: false, defaultValue: nil),
            ColumnSchema(
                name: "title", type: .text, isOptional: true, isUnique: false, isIndexed: false, defaultValue: nil),
            ColumnSchema(
                name: "read", type: .integer, isOptional: false, isUnique: false, isIndexed: false, defaultValue: nil),
            ColumnSchema(
                name: "price", type: .text, isOptional: false, isUnique: false, isIndexed: false, defaultValue: nil),
        ])

    func sql(_ build: (inout QueryRenderer) -> Void) -> (String, [StoredValue]) {
        var renderer = QueryRenderer(Self.post, startingWith: "SELECT \"_pk\" FROM \"Post\"", dialect: .postgres)
        build(&renderer)
        return (renderer.text, renderer.parameters)
    }

    @Test func conditionsParametersAndLists() {
        var query = StoreQuery(Self.post)
        query.predicate = .and([
            .not(.column(2)),
            .identical(.column(1), .value(.text("a")), .stored),
            .isIn(.column(0), [.integer(3), .integer(5), .null], .stored),
        ])
        query.excludedRowIDs = [9]
        let (text, parameters) = sql { $0.writeWhere(query) }
        #expect(
            text == "SELECT \"_pk\" FROM \"Post\" WHERE ((NOT (\"read\" <> 0)) AND (\"title\" IS NOT DISTINCT FROM $1) "
                + "AND ((\"id\" = ANY($2::int8[])) OR (\"id\" IS NULL))) AND (NOT \"_pk\" = ANY($3::int8[]))")
        #expect(parameters == [.text("a"), .text("{3,5}"), .text("{9}")])
    }

    @Test func decimalsCompareAsNumericAndNullsSortAsInSQLite() {
        var query = StoreQuery(Self.post)
        query.predicate = .compare(.column(3), .greater, .value(.text("10.5")), .decimal)
        query.sort = [
            QuerySort(column: 1, descending: false, ordering: .stored),
            QuerySort(column: 3, descending: true, ordering: .decimal),
        ]
        query.limit = 20
        let (text, parameters) = sql {
            $0.writeWhere(query)
            $0.writeOrderBy(query.sort)
            $0.writeLimit(query)
        }
        #expect(
            text
                == "SELECT \"_pk\" FROM \"Post\" WHERE (\"price\"::numeric > $1::numeric) ORDER BY \"title\" NULLS FIRST, "
                + "\"price\"::numeric DESC NULLS LAST, \"_pk\" DESC LIMIT $2 OFFSET $3")
        #expect(parameters == [.text("10.5"), .integer(20), .integer(0)])
    }

    @Test func textTestsAndArrays() {
        var renderer = QueryRenderer(Self.post, dialect: .postgres)
        let text = renderer.render(
            .or([
                .contains(.column(1), .value(.text("an"))), .hasPrefix(.column(1), .value(.text("B"))),
                .arrayContains(.column(3), .text("t1")),
            ]))
        #expect(
            text == "((strpos(\"title\", $1) > 0) OR starts_with(\"title\", $2) OR EXISTS (SELECT 1 FROM "
                + "json_array_elements_text((\"price\")::json) AS \"e\"(\"value\") WHERE \"e\".\"value\" = $3))")
        #expect(renderer.refusal == nil)
    }

    @Test func whatPostgreSQLCannotAnswerIsRefused() {
        var renderer = QueryRenderer(Self.post, dialect: .postgres)
        _ = renderer.render(.compare(.function(.characterCount, [.column(1)]), .greater, .value(.integer(3)), .stored))
        #expect(renderer.refusal?.code == .unsupportedQuery)
        var lexical = QueryRenderer(Self.post, dialect: .postgres)
        _ = lexical.render(.compare(.column(1), .less, .value(.text("b")), .lexical))
        #expect(lexical.refusal?.message.contains("lexical") == true)
        // SQLite answers both with the Swift functions it registers.
        var sqlite = QueryRenderer(Self.post)
        _ = sqlite.render(.compare(.column(1), .less, .value(.text("b")), .lexical))
        #expect(sqlite.refusal == nil)
    }
}
