/// PostgreSQL's forms of what SQLite writes with `json_each`: a list is one array parameter.
extension QueryRenderer {
    /// `("id" = ANY($1::int8[]))`: one parameter per kind of value in the list (integers,
    /// reals, text), each an array literal; NULL as `IS NULL`, blobs one by one.
    ///
    /// ```sql
    /// (("price"::numeric = ANY($1::numeric[])))          -- Decimal text, by value
    /// ```
    mutating func writeAny(_ value: QueryExpression, _ values: [StoredValue], _ ordering: QueryOrdering) {
        var integers: [StoredValue] = []
        var reals: [StoredValue] = []
        var texts: [StoredValue] = []
        var alone: [StoredValue] = []
        var hasNull = false
        for candidate in values {
            switch candidate {
            case .integer: integers.append(candidate)
            case .real(let real) where real.isFinite: reals.append(candidate)
            case .text: texts.append(candidate)
            case .null: hasNull = true
            case .real, .blob: alone.append(candidate)
            }
        }
        var terms: [(values: [StoredValue], type: String)] = []
        if ordering == .decimal {
            if !(integers + reals + texts).isEmpty { terms.append((integers + reals + texts, "numeric")) }
        } else {
            if !integers.isEmpty { terms.append((integers, "int8")) }
            if !reals.isEmpty { terms.append((reals, "float8")) }
            if !texts.isEmpty { terms.append((texts, "text")) }
        }
        let count = terms.count + alone.count + (hasNull ? 1 : 0)
        guard count > 0 else {
            text += "FALSE"
            return
        }
        text += "("
        var first = true
        func separate(_ text: inout String) {
            if !first { text += " OR " }
            first = false
        }
        for term in terms {
            separate(&text)
            text += "("
            writeValue(value)
            if ordering == .decimal { text += "::numeric" }
            text += " = ANY("
            bind(.text(Self.arrayLiteral(term.values)))
            text += "::\(term.type)[]))"
        }
        for candidate in alone {
            separate(&text)
            text += "("
            writeValue(value)
            text += " = "
            bind(candidate)
            text += ")"
        }
        if hasNull {
            separate(&text)
            text += "("
            writeValue(value)
            text += " IS NULL)"
        }
        text += ")"
    }

    /// A PostgreSQL array literal of integers, finite reals or text: `{1,2,3}`,
    /// `{"a","b \"c\""}`. Every element is quoted except numbers.
    package static func arrayLiteral(_ values: [StoredValue]) -> String {
        var literal = "{"
        for (offset, value) in values.enumerated() {
            if offset > 0 { literal += "," }
            switch value {
            case .integer(let integer): literal += String(integer)
            case .real(let real): literal += "\(real)"
            case .text(let text):
                literal += "\""
                for character in text.unicodeScalars {
                    if character == "\"" || character == "\\" { literal += "\\" }
                    literal.unicodeScalars.append(character)
                }
                literal += "\""
            case .null, .blob: literal += "NULL"
            }
        }
        return literal + "}"
    }

    /// A value as `json_array_elements_text` gives an element back: text as it is, numbers
    /// as JSON writes them.
    static func plainText(_ value: StoredValue) -> String {
        switch value {
        case .text(let text): text
        case .integer(let integer): String(integer)
        case .real(let real): "\(real)"
        case .null: "null"
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension QueryExpression {
    /// Whether the expression is a condition (a boolean in PostgreSQL) rather than a value.
    var isCondition: Bool {
        switch self {
        case .not, .and, .or, .compare, .identical, .isNull, .contains, .hasPrefix, .isIn, .arrayContains: true
        case .related(let query):
            if case .exists = query.result { true } else { false }
        case .column, .value, .arithmetic, .negate, .conditional, .coalesce, .function: false
        }
    }

    /// The ordering a comparison uses, `nil` for anything else.
    var ordering: QueryOrdering? {
        switch self {
        case .compare(_, _, _, let ordering), .identical(_, _, let ordering), .isIn(_, _, let ordering): ordering
        default: nil
        }
    }
}
