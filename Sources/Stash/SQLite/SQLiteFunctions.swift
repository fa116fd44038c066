internal import CSQLite
import Foundation

/// The functions and collations queries use to give Swift's answers where SQLite's own
/// differ, registered on every connection.
///
/// | name | what | Swift |
/// |---|---|---|
/// | `stash_count(x)` | the number of Characters (SQLite's `length` counts code points) | `count` |
/// | `stash_contains(x, y)` | whether x holds y, Character by Character (`instr` finds code points) | `contains` |
/// | `stash_starts_with(x, y)` | whether x starts with y, Character by Character | `starts(with:)` |
/// | `stash_decimal_compare(x, y)` | -1, 0 or 1: decimal text by value, exactly | `Decimal`'s `<`, `==` |
/// | `STASH_DECIMAL` | the same order as a collation, for ORDER BY | `Decimal`'s `<` |
/// | `STASH_LEXICAL` | orders text | `String.StandardComparator.lexical` |
///
/// The store stays readable by the `sqlite3` shell: these are used by queries only, never in
/// the schema. Conditions compare decimals with the function, not the collation: SQLite
/// gives an expression the collation of any `COLLATE` inside it, so a collation in a
/// ternary's test would change how the ternary's result compares.
enum SQLiteFunctions {
    static func register(on handle: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(
            handle, "stash_count", 1, flags, nil,
            { context, _, arguments in
                guard let text = textArgument(arguments, 0) else { return sqlite3_result_null(context) }
                sqlite3_result_int64(context, Int64(text.count))
            }, nil, nil, nil)
        // One callback for both text tests; the user data says which (1 contains, 2 starts).
        for (name, test) in [("stash_contains", 1), ("stash_starts_with", 2)] {
            sqlite3_create_function_v2(
                handle, name, 2, flags, UnsafeMutableRawPointer(bitPattern: test),
                { context, _, arguments in
                    guard let text = textArgument(arguments, 0), let part = textArgument(arguments, 1) else {
                        return sqlite3_result_null(context)
                    }
                    let whole = PredicateExpressions.Value(text)
                    let found = PredicateExpressions.Value(part)
                    let startsWith = Int(bitPattern: sqlite3_user_data(context)) == 2
                    sqlite3_result_int(
                        context,
                        startsWith
                            ? evaluate(PredicateExpressions.build_starts(whole, with: found))
                            : evaluate(PredicateExpressions.build_contains(whole, found)))
                }, nil, nil, nil)
        }
        sqlite3_create_function_v2(
            handle, "stash_decimal_compare", 2, flags, nil,
            { context, _, arguments in
                guard let left = decimalArgument(arguments, 0), let right = decimalArgument(arguments, 1) else {
                    return sqlite3_result_null(context)
                }
                sqlite3_result_int(context, left < right ? -1 : (left == right ? 0 : 1))
            }, nil, nil, nil)
        sqlite3_create_collation_v2(
            handle, "STASH_DECIMAL", SQLITE_UTF8, nil,
            { _, leftCount, left, rightCount, right in
                let left = decimal(left, leftCount)
                let right = decimal(right, rightCount)
                switch (left, right) {
                case (let left?, let right?): return left < right ? -1 : (left == right ? 0 : 1)
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                }
            }, nil)
        sqlite3_create_collation_v2(
            handle, "STASH_LEXICAL", SQLITE_UTF8, nil,
            { _, leftCount, left, rightCount, right in
                order(String.StandardComparator.lexical, left, leftCount, right, rightCount)
            }, nil)
    }
}

/// What Foundation's own evaluation of the expression answers, as 1 or 0: the store's
/// answer is `Predicate.evaluate`'s by construction.
private func evaluate(_ expression: some PredicateExpression<Bool>) -> Int32 {
    (try? expression.evaluate(PredicateBindings())) == true ? 1 : 0
}

/// The decimal in argument `index`, `nil` for NULL or text that is no number.
private func decimalArgument(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> Decimal? {
    textArgument(arguments, index).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
}

/// The text of argument `index`, `nil` for NULL.
private func textArgument(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
    guard let value = arguments?[index], sqlite3_value_type(value) != SQLITE_NULL,
        let bytes = sqlite3_value_text(value)
    else { return nil }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

private func string(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
    guard let bytes else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
}

private func decimal(_ bytes: UnsafeRawPointer?, _ count: Int32) -> Decimal? {
    Decimal(string: string(bytes, count), locale: Locale(identifier: "en_US_POSIX"))
}

private func order(
    _ comparator: String.StandardComparator, _ left: UnsafeRawPointer?, _ leftCount: Int32,
    _ right: UnsafeRawPointer?, _ rightCount: Int32
) -> Int32 {
    switch comparator.compare(string(left, leftCount), string(right, rightCount)) {
    case .orderedAscending: -1
    case .orderedSame: 0
    case .orderedDescending: 1
    }
}
