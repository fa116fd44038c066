import Foundation

/// Renders a `QueryExpression` as SQL text, every value a bound parameter, every identifier
/// quoted.
///
/// ```sql
/// (("read" <> ?) AND ("publishedAt" >= ?) AND (instr("title", ?) > 0))
/// ("id" IN (SELECT value FROM json_each(?)))         -- a captured collection of any size
/// EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?)   -- an array attribute
/// ```
///
/// With `SQLDialect.postgres` the same expressions become PostgreSQL's SQL:
///
/// ```sql
/// ((("read" <> $1)) AND ("publishedAt" >= $2))
/// ("id" = ANY($1::int8[]))                            -- a captured collection of any size
/// ORDER BY "title" NULLS FIRST, "_pk"                 -- NULLs first, as SQLite orders them
/// ```
package struct QueryRenderer {
    package let schema: EntitySchema
    package let dialect: SQLDialect
    /// The SQL written so far; each part is appended, not built and joined.
    package internal(set) var text = ""
    package private(set) var parameters: [StoredValue] = []
    /// The first part of the query the dialect cannot answer as Swift would: the store
    /// throws it instead of running the SQL.
    package private(set) var refusal: StashError?

    /// The tables whose columns `.column` names, innermost last: the query's own, then one
    /// per `.related` being written, by alias (`r1`, `r2`, …).
    private var scopes: [(alias: String?, schema: EntitySchema)]
    /// How many subqueries the text being written is inside: at 0 a column is written bare,
    /// inside one every column is written with its table, so none is taken for another's.
    private var depth = 0
    private var aliases = 0

    package init(_ schema: EntitySchema, startingWith text: String = "", dialect: SQLDialect = .sqlite) {
        self.schema = schema
        self.dialect = dialect
        self.scopes = [(nil, schema)]
        self.text.reserveCapacity(text.utf8.count + 160)
        self.text += text
    }

    /// The expression's SQL on its own (its parameters are added to `parameters`).
    package mutating func render(_ expression: QueryExpression) -> String {
        var written = ""
        swap(&written, &text)
        writeCondition(expression)
        swap(&written, &text)
        return written
    }

    /// Writes a condition: in PostgreSQL a value used as one is compared with 0, as SQLite
    /// takes it (`("flag" <> 0)`), and constant truth is `TRUE` or `FALSE`.
    mutating func writeCondition(_ expression: QueryExpression) {
        guard dialect.isPostgres, !expression.isCondition else { return write(expression) }
        if case .value(.integer(let value)) = expression {
            text += value != 0 ? "TRUE" : "FALSE"
            return
        }
        text += "("
        write(expression)
        text += " <> 0)"
    }

    /// Writes a value: in PostgreSQL a condition used as one becomes 1 or 0 (NULL stays
    /// NULL), as SQLite gives it.
    mutating func writeValue(_ expression: QueryExpression) {
        guard dialect.isPostgres, expression.isCondition else { return write(expression) }
        text += "("
        write(expression)
        text += ")::int"
    }

    mutating func refuse(_ what: String) {
        guard refusal == nil else { return }
        refusal = StashError(.unsupportedQuery, what, entity: schema.name)
    }

    private var falseText: String { dialect.isPostgres ? "FALSE" : "0" }

    mutating func write(_ expression: QueryExpression) {
        switch expression {
        case .column(let position):
            writeColumn(position)
        case .value(let value):
            bind(value)
        case .not(.compare(let left, let op, let right, let ordering)) where ordering != .decimal:
            // `NOT (a <> b)` is `a = b` in SQL's three values too (NULL either way), and only
            // the second can use an index: `!$0.removed` on an indexed column.
            write(.compare(left, op.negated, right, ordering))
        case .not(let inner):
            text += "(NOT "
            writeCondition(inner)
            text += ")"
        case .and(let terms):
            writeJoined(terms, " AND ", empty: dialect.isPostgres ? "TRUE" : "1")
        case .or(let terms):
            writeJoined(terms, " OR ", empty: falseText)
        case .compare(let left, let op, let right, .decimal) where dialect.isPostgres:
            // numeric compares decimal text by its value, exactly, as Decimal does.
            writeInfix(left, "::numeric " + op.rawValue + " ", right, rightSuffix: "::numeric")
        case .identical(let left, let right, .decimal) where dialect.isPostgres:
            writeInfix(left, "::numeric IS NOT DISTINCT FROM ", right, rightSuffix: "::numeric")
        case _ where dialect.isPostgres && expression.ordering == .lexical:
            refuse(
                "String.StandardComparator.lexical orders by Foundation's rules, which PostgreSQL has no collation "
                    + "for; compare with the default order, or sort the fetched objects in Swift")
            text += "NULL"
        case .compare(let left, let op, let right, .decimal):
            text += "("
            writeCall("stash_decimal_compare", [left, right])
            text += " "
            text += op.rawValue
            text += " 0)"
        case .identical(let left, let right, .decimal):
            // Equal values, or both NULL.
            text += "coalesce("
            writeCall("stash_decimal_compare", [left, right])
            text += " = 0, ("
            write(left)
            text += " IS NULL) AND ("
            write(right)
            text += " IS NULL))"
        case .compare(.related(let query), let op, .value(let constant), let ordering)
        where query.isToOneValue:
            writeToOneValueTest(query, Self.collation(ordering) + " " + op.rawValue + " ", constant)
        case .compare(.value(let constant), let op, .related(let query), let ordering)
        where query.isToOneValue && (op == .equal || op == .notEqual):
            writeToOneValueTest(query, Self.collation(ordering) + " " + op.rawValue + " ", constant)
        case .identical(.related(let query), .value(let constant), let ordering)
        where query.isToOneValue && constant != .null:
            writeToOneValueTest(query, Self.collation(ordering) + " IS ", constant)
        case .compare(let left, let op, let right, let ordering):
            writeInfix(left, Self.collation(ordering) + " " + op.rawValue + " ", right)
        case .identical(let left, let right, let ordering):
            writeInfix(left, Self.collation(ordering) + (dialect.isPostgres ? " IS NOT DISTINCT FROM " : " IS "), right)
        case .isNull(let inner):
            text += "("
            writeValue(inner)
            text += " IS NULL)"
        case .arithmetic(let left, let op, let right):
            writeInfix(left, " " + op.rawValue + " ", right)
        case .negate(let inner):
            text += "(- "
            writeValue(inner)
            text += ")"
        case .conditional(let test, let then, let otherwise):
            text += "(CASE WHEN "
            writeCondition(test)
            text += " THEN "
            writeValue(then)
            text += " ELSE "
            writeValue(otherwise)
            text += " END)"
        case .coalesce(let first, let second):
            writeCall("coalesce", [first, second])
        case .contains(let haystack, let part) where dialect.isPostgres:
            // By code points, as SQLite's `instr`; see docs/ARCHITECTURE.md ("Two stores").
            text += "("
            writeCall("strpos", [haystack, part])
            text += " > 0)"
        case .hasPrefix(let haystack, let prefix) where dialect.isPostgres:
            writeCall("starts_with", [haystack, prefix])
        case .function(.characterCount, _) where dialect.isPostgres:
            refuse(
                "a String's count counts Characters (grapheme clusters), which PostgreSQL cannot; "
                    + "its char_length counts code points")
            text += "NULL"
        case .function(.arrayCount, let arguments) where dialect.isPostgres:
            text += "json_array_length(("
            for argument in arguments { writeValue(argument) }
            text += ")::json)"
        case .arrayContains(let array, let value) where dialect.isPostgres:
            text += "EXISTS (SELECT 1 FROM json_array_elements_text(("
            writeValue(array)
            text += ")::json) AS \"e\"(\"value\") WHERE \"e\".\"value\" = "
            bind(.text(Self.plainText(value)))
            text += ")"
        case .contains(let haystack, let part):
            writeTextTest("stash_contains", haystack, part, instr: Self.isASCII(part) ? " > 0" : nil)
        case .hasPrefix(let haystack, let prefix):
            writeTextTest("stash_starts_with", haystack, prefix, instr: Self.isASCII(prefix) ? " = 1" : nil)
        case .function(.characterCount, let arguments):
            writeCall("stash_count", arguments)
        case .function(.arrayCount, let arguments):
            writeCall("json_array_length", arguments)
        case .isIn(let value, let values, let ordering):
            writeIsIn(value, values, ordering)
        case .related(let query):
            writeRelated(query)
        case .arrayContains(let array, let value):
            text += "EXISTS (SELECT 1 FROM json_each("
            writeValue(array)
            text += ") WHERE value = "
            bind(value)
            text += ")"
        }
    }

    /// `(left infix right)`.
    private mutating func writeInfix(
        _ left: QueryExpression, _ infix: String, _ right: QueryExpression, rightSuffix: String = ""
    ) {
        text += "("
        writeValue(left)
        text += infix
        writeValue(right)
        text += rightSuffix
        text += ")"
    }

    /// A related row's value compared with a constant, as the rows that pass:
    /// `("writer" IN (SELECT "r1"."_pk" FROM "Writer" AS "r1" WHERE "r1"."name" = ?))`.
    /// The same answer as comparing `(SELECT "r1"."name" … WHERE "r1"."_pk" = "Book"."writer")`
    /// (a key names one row or none, and a missing row or a NULL value passes neither), but
    /// SQLite runs the subquery once, through the related table's index, instead of once a
    /// row: one feed's entries counted in 0.3 ms instead of 484 ms among 500,000.
    private mutating func writeToOneValueTest(_ query: RelatedQuery, _ infix: String, _ constant: StoredValue) {
        guard case .toOne(let foreignKey) = query.link, case .value(let value) = query.result else { return }
        aliases += 1
        let alias = "r\(aliases)"
        text += "("
        write(foreignKey)
        text += " IN (SELECT \"\(alias)\".\"_pk\" FROM \(quoted(query.target.name)) AS \"\(alias)\" WHERE "
        depth += 1
        scopes.append((alias, query.target))
        writeValue(value)
        if dialect.isPostgres, infix.hasSuffix(" IS ") {
            text += String(infix.dropLast(4)) + " IS NOT DISTINCT FROM "
        } else {
            text += infix
        }
        bind(constant)
        scopes.removeLast()
        depth -= 1
        text += "))"
    }

    /// `(SELECT "r1"."name" FROM "Writer" AS "r1" WHERE "r1"."_pk" = "Book"."writer")`,
    /// `EXISTS (SELECT 1 FROM "Book" AS "r1" WHERE "r1"."writer" = "Writer"."_pk" AND (…))`,
    /// `(SELECT count(*) FROM "Book" AS "r1" WHERE "r1"."writer" = "Writer"."_pk")`.
    private mutating func writeRelated(_ query: RelatedQuery) {
        aliases += 1
        let alias = "r\(aliases)"
        let outer = scopes[scopes.count - 1]
        let outerName = outer.alias.map { "\"\($0)\"" } ?? quoted(outer.schema.name)
        depth += 1
        scopes.append((alias, query.target))
        switch query.result {
        case .value(let value):
            text += "(SELECT "
            writeValue(value)
        case .exists:
            text += "EXISTS (SELECT 1"
        case .count:
            text += "(SELECT count(*)"
        }
        text += " FROM "
        if case .joined(let table, _, let relatedColumn) = query.link {
            text += "\(quoted(table)) AS \"j\(aliases)\" JOIN "
            text +=
                "\(quoted(query.target.name)) AS \"\(alias)\" ON \"\(alias)\".\"_pk\" = \"j\(aliases)\".\(quoted(relatedColumn))"
        } else {
            text += "\(quoted(query.target.name)) AS \"\(alias)\""
        }
        text += " WHERE "
        switch query.link {
        case .toOne(let foreignKey):
            text += "\"\(alias)\".\"_pk\" = "
            // The key is the outer row's column.
            let inner = scopes.removeLast()
            write(foreignKey)
            scopes.append(inner)
        case .toMany(let inverseColumn):
            writeColumn(inverseColumn)
            text += " = \(outerName).\"_pk\""
        case .joined(_, let ownColumn, _):
            text += "\"j\(aliases)\".\(quoted(ownColumn)) = \(outerName).\"_pk\""
        }
        if case .exists(let condition?) = query.result {
            text += " AND "
            writeCondition(condition)
        }
        text += ")"
        scopes.removeLast()
        depth -= 1
    }

    private mutating func writeColumn(_ position: Int) {
        let scope = scopes[scopes.count - 1]
        if depth > 0 {
            text += scope.alias.map { "\"\($0)\"" } ?? quoted(scope.schema.name)
            text += "."
        }
        let name = scope.schema.columns[position].name
        // Attribute names are Swift identifiers: no quote to double.
        guard !name.utf8.contains(UInt8(ascii: "\"")) else {
            text += quoted(name)
            return
        }
        text += "\""
        text += name
        text += "\""
    }

    /// `(a AND b AND c)`, or `empty` for no terms.
    private mutating func writeJoined(_ terms: [QueryExpression], _ separator: String, empty: String) {
        guard !terms.isEmpty else {
            text += empty
            return
        }
        text += "("
        for (offset, term) in terms.enumerated() {
            if offset > 0 { text += separator }
            writeCondition(term)
        }
        text += ")"
    }

    private mutating func writeCall(_ function: String, _ arguments: [QueryExpression]) {
        text += function
        text += "("
        for (offset, argument) in arguments.enumerated() {
            if offset > 0 { text += ", " }
            writeValue(argument)
        }
        text += ")"
    }

    /// `function(text, part)`, after `instr(text, part)` compared as `instr` says when given:
    /// the fast test that rules rows out first.
    private mutating func writeTextTest(
        _ function: String, _ haystack: QueryExpression, _ part: QueryExpression, instr: String?
    ) {
        guard let instr else { return writeCall(function, [haystack, part]) }
        text += "("
        writeCall("instr", [haystack, part])
        text += instr
        text += " AND "
        writeCall(function, [haystack, part])
        text += ")"
    }

    /// Whether the expression is ASCII text. Then `instr` (code points) finds it wherever
    /// Swift (Characters) does, since no other Character equals an ASCII one, and the fast
    /// `instr` can rule rows out before the exact Swift function runs.
    private static func isASCII(_ expression: QueryExpression) -> Bool {
        guard case .value(.text(let text)) = expression else { return false }
        return text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `x IN (SELECT value FROM json_each(?))`, one parameter for any number of values: what
    /// JSON can carry exactly (integers, finite reals, text). Blobs, infinities and NULL are
    /// compared one by one beside it. Each term writes `value` again, so that its own
    /// parameters are bound where its text is.
    private mutating func writeIsIn(_ value: QueryExpression, _ values: [StoredValue], _ ordering: QueryOrdering) {
        if dialect.isPostgres { return writeAny(value, values, ordering) }
        let inJSON = values.filter(\.fitsJSON)
        let alone = values.filter { !$0.fitsJSON }
        let termCount = (inJSON.isEmpty ? 0 : 1) + alone.count
        guard termCount > 0 else {
            text += "0"
            return
        }
        if termCount > 1 { text += "(" }
        if !inJSON.isEmpty, ordering == .decimal {
            text += "EXISTS (SELECT 1 FROM json_each("
            bind(.text(Self.jsonArray(inJSON)))
            text += ") WHERE "
            text += "stash_decimal_compare("
            write(value)
            text += ", value) = 0)"
        } else if !inJSON.isEmpty {
            text += "("
            write(value)
            text += Self.collation(ordering)
            text += " IN (SELECT value FROM json_each("
            bind(.text(Self.jsonArray(inJSON)))
            text += ")))"
        }
        for (offset, candidate) in alone.enumerated() {
            if offset > 0 || !inJSON.isEmpty { text += " OR " }
            text += "("
            write(value)
            if candidate == .null {
                text += " IS NULL)"
            } else {
                text += Self.collation(ordering)
                text += " = "
                bind(candidate)
                text += ")"
            }
        }
        if termCount > 1 { text += ")" }
    }

    /// ` ORDER BY "title" COLLATE STASH_LEXICAL, "publishedAt" DESC, "_pk" DESC`: ties go by
    /// row id, in the direction of the last key, so that an index on the last key (which
    /// ends with the row id) gives the whole order.
    ///
    /// A list position comes first: ` ORDER BY "post_position" IS NULL, "post_position", "_pk"`;
    /// `first`, a key of the caller's, before that (a search's score: the sort breaks its ties).
    package mutating func writeOrderBy(_ sort: [QuerySort], listPosition: String? = nil, first: String? = nil) {
        text += " ORDER BY "
        if let first {
            text += first
            text += ", "
        }
        if let listPosition {
            text += "\(quoted(listPosition)) IS NULL, \(quoted(listPosition)), "
        }
        for key in sort {
            if dialect.isPostgres, key.ordering == .lexical {
                refuse(
                    "String.StandardComparator.lexical orders by Foundation's rules, which PostgreSQL has no "
                        + "collation for; sort with the default order, or sort the fetched objects in Swift")
            }
            if dialect.isPostgres, key.ordering == .decimal {
                writeValue(key.key)
                text += "::numeric"
            } else {
                writeValue(key.key)
                text += dialect.isPostgres ? "" : Self.collation(key.ordering)
            }
            // SQLite orders NULL before every value.
            if dialect.isPostgres {
                text += key.descending ? " DESC NULLS LAST, " : " NULLS FIRST, "
            } else {
                text += key.descending ? " DESC, " : ", "
            }
        }
        text += sort.last?.descending == true ? "\"_pk\" DESC" : "\"_pk\""
    }

    /// The conditions of a query, predicate and exclusions: ` WHERE …`, or nothing.
    package mutating func writeWhere(_ query: StoreQuery) {
        var first = true
        func next(_ text: inout String) {
            text += first ? " WHERE " : " AND "
            first = false
        }
        switch query.filter {
        case .all:
            break
        case .rowIDs(let rowIDs) where dialect.isPostgres:
            next(&text)
            text += "(\"_pk\" = ANY("
            bind(.text(Self.arrayLiteral(rowIDs.map { .integer($0) })))
            text += "::int8[]))"
        case .rowIDs(let rowIDs):
            next(&text)
            text += "(\"_pk\" IN (SELECT value FROM json_each("
            bind(.text(Self.jsonArray(rowIDs.map { .integer($0) })))
            text += ")))"
        case .values(let column, let values):
            next(&text)
            write(.isIn(.column(column), values, .stored))
        }
        if let predicate = query.predicate {
            next(&text)
            writeCondition(predicate)
        }
        if !query.excludedRowIDs.isEmpty, dialect.isPostgres {
            next(&text)
            text += "(NOT \"_pk\" = ANY("
            bind(.text(Self.arrayLiteral(query.excludedRowIDs.map { .integer($0) })))
            text += "::int8[]))"
        } else if !query.excludedRowIDs.isEmpty {
            next(&text)
            text += "(\"_pk\" NOT IN (SELECT value FROM json_each("
            bind(.text(Self.jsonArray(query.excludedRowIDs.map { .integer($0) })))
            text += ")))"
        }
    }

    /// ` LIMIT ? OFFSET ?` when the query has either.
    package mutating func writeLimit(_ query: StoreQuery) {
        guard query.limit != nil || query.offset != nil else { return }
        if dialect.isPostgres {
            if let limit = query.limit {
                text += " LIMIT "
                bind(.integer(Int64(limit)))
            }
            text += " OFFSET "
            bind(.integer(Int64(query.offset ?? 0)))
            return
        }
        text += " LIMIT "
        bind(.integer(Int64(query.limit ?? -1)))
        text += " OFFSET "
        bind(.integer(Int64(query.offset ?? 0)))
    }

    mutating func bind(_ value: StoredValue) {
        parameters.append(value)
        guard dialect.isPostgres else {
            text += "?"
            return
        }
        text += "$"
        text += String(parameters.count)
    }

    private static func collation(_ ordering: QueryOrdering) -> String {
        switch ordering {
        case .stored: ""
        case .decimal: " COLLATE STASH_DECIMAL"
        case .lexical: " COLLATE STASH_LEXICAL"
        }
    }

    /// The values as a JSON array, for `json_each`: numbers as numbers, text as strings
    /// (values that `fitsJSON`, and NULL).
    static func jsonArray(_ values: [StoredValue]) -> String {
        var json = "["
        for (offset, value) in values.enumerated() {
            if offset > 0 { json += "," }
            switch value {
            case .null: json += "null"
            case .integer(let integer): json += String(integer)
            case .real(let real): json += "\(real)"
            case .text(let text): json += jsonString(text)
            case .blob: preconditionFailure("a blob cannot be a JSON value")
            }
        }
        return json + "]"
    }

    private static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}

extension StoredValue {
    /// Whether `json_each` gives the value back exactly: integers, finite reals, text
    /// without NUL (SQLite 3.40 ends a JSON string at `\u0000`).
    fileprivate var fitsJSON: Bool {
        switch self {
        case .integer: true
        case .text(let text): !text.utf8.contains(0)
        case .real(let real): real.isFinite
        case .null, .blob: false
        }
    }
}
