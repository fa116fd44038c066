import Foundation

/// Renders a `QueryExpression` as SQL text, every value a bound parameter, every identifier
/// quoted.
///
/// ```sql
/// (("read" <> ?) AND ("publishedAt" >= ?) AND (instr("title", ?) > 0))
/// ("id" IN (SELECT value FROM json_each(?)))         -- a captured collection of any size
/// EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?)   -- an array attribute
/// ```
struct QueryRenderer {
    let schema: EntitySchema
    private(set) var parameters: [StoredValue] = []

    init(_ schema: EntitySchema) {
        self.schema = schema
    }

    mutating func render(_ expression: QueryExpression) -> String {
        switch expression {
        case .column(let position):
            return quoted(schema.columns[position].name)
        case .value(let value):
            return bind(value)
        case .not(let inner):
            return "(NOT \(render(inner)))"
        case .and(let terms):
            return terms.isEmpty ? "1" : "(" + terms.map { render($0) }.joined(separator: " AND ") + ")"
        case .or(let terms):
            return terms.isEmpty ? "0" : "(" + terms.map { render($0) }.joined(separator: " OR ") + ")"
        case .compare(let left, let op, let right, let ordering):
            return "(\(render(left))\(Self.collation(ordering)) \(op.rawValue) \(render(right)))"
        case .identical(let left, let right, let ordering):
            return "(\(render(left))\(Self.collation(ordering)) IS \(render(right)))"
        case .isNull(let inner):
            return "(\(render(inner)) IS NULL)"
        case .arithmetic(let left, let op, let right):
            return "(\(render(left)) \(op.rawValue) \(render(right)))"
        case .negate(let inner):
            return "(- \(render(inner)))"
        case .conditional(let test, let then, let otherwise):
            return "(CASE WHEN \(render(test)) THEN \(render(then)) ELSE \(render(otherwise)) END)"
        case .coalesce(let first, let second):
            return "coalesce(\(render(first)), \(render(second)))"
        case .contains(let text, let part):
            let exact = "stash_contains(\(render(text)), \(render(part)))"
            guard Self.isASCII(part) else { return exact }
            return "(instr(\(render(text)), \(render(part))) > 0 AND \(exact))"
        case .hasPrefix(let text, let prefix):
            let exact = "stash_starts_with(\(render(text)), \(render(prefix)))"
            guard Self.isASCII(prefix) else { return exact }
            return "(instr(\(render(text)), \(render(prefix))) = 1 AND \(exact))"
        case .function(.characterCount, let arguments):
            return "stash_count(\(arguments.map { render($0) }.joined(separator: ", ")))"
        case .function(.arrayCount, let arguments):
            return "json_array_length(\(arguments.map { render($0) }.joined(separator: ", ")))"
        case .isIn(let value, let values, let ordering):
            return renderIsIn(value, values, ordering)
        case .arrayContains(let array, let value):
            return "EXISTS (SELECT 1 FROM json_each(\(render(array))) WHERE value = \(bind(value)))"
        }
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
    /// compared one by one beside it.
    private mutating func renderIsIn(_ value: QueryExpression, _ values: [StoredValue], _ ordering: QueryOrdering)
        -> String
    {
        let inJSON = values.filter(\.fitsJSON)
        var terms: [String] = []
        // Each term renders `value` again: its own parameters are bound where its text is.
        if !inJSON.isEmpty {
            let list = Self.jsonArray(inJSON)
            terms.append(
                "(\(render(value))\(Self.collation(ordering)) IN (SELECT value FROM json_each(\(bind(.text(list))))))")
        }
        for candidate in values where !candidate.fitsJSON {
            terms.append(
                candidate == .null
                    ? "(\(render(value)) IS NULL)"
                    : "(\(render(value))\(Self.collation(ordering)) = \(bind(candidate)))")
        }
        switch terms.count {
        case 0: return "0"
        case 1: return terms[0]
        default: return "(" + terms.joined(separator: " OR ") + ")"
        }
    }

    /// `ORDER BY "title" COLLATE STASH_LEXICAL, "publishedAt" DESC, "_pk" DESC`: ties go by
    /// row id, in the direction of the last key, so that an index on the last key (which
    /// ends with the row id) gives the whole order.
    func orderBy(_ sort: [QuerySort]) -> String {
        let keys = sort.map { key in
            quoted(schema.columns[key.column].name) + Self.collation(key.ordering) + (key.descending ? " DESC" : "")
        }
        let tieBreak = sort.last?.descending == true ? "\"_pk\" DESC" : "\"_pk\""
        return " ORDER BY " + (keys + [tieBreak]).joined(separator: ", ")
    }

    /// The conditions of a query, predicate and exclusions: ` WHERE …`, or nothing.
    mutating func whereClause(_ query: StoreQuery) -> String {
        var conditions: [String] = []
        switch query.filter {
        case .all:
            break
        case .rowIDs(let rowIDs):
            conditions.append(
                "(\"_pk\" IN (SELECT value FROM json_each(\(bind(.text(Self.jsonArray(rowIDs.map { .integer($0) })))))))"
            )
        case .values(let column, let values):
            conditions.append(render(.isIn(.column(column), values, .stored)))
        }
        if let predicate = query.predicate {
            conditions.append(render(predicate))
        }
        if !query.excludedRowIDs.isEmpty {
            let excluded = Self.jsonArray(query.excludedRowIDs.map { .integer($0) })
            conditions.append("(\"_pk\" NOT IN (SELECT value FROM json_each(\(bind(.text(excluded))))))")
        }
        return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// ` LIMIT ? OFFSET ?` when the query has either.
    mutating func limitClause(_ query: StoreQuery) -> String {
        guard query.limit != nil || query.offset != nil else { return "" }
        return " LIMIT \(bind(.integer(Int64(query.limit ?? -1)))) OFFSET \(bind(.integer(Int64(query.offset ?? 0))))"
    }

    private mutating func bind(_ value: StoredValue) -> String {
        parameters.append(value)
        return "?"
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
