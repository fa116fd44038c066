/// A value as SQLite stores it: one of its five storage classes.
///
/// Every attribute converts to and from this form, so the SQLite layer binds and reads
/// values without knowing any Swift model type. It is also the key of the context's
/// unique index, so "same unique value" means the same thing in memory and in the store.
package enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class's name as SQLite spells it, for error messages.
    package var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension SQLValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}
