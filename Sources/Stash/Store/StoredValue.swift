/// A value as a store keeps it, whatever the backend: one of five kinds.
///
/// Codecs turn attribute values into stored values and back; a store maps them to its own
/// types (SQLite's storage classes). Nothing above `Store/` sees a backend's types, so the
/// same change sets and queries serve any store.
enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The kind's name, for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

extension StoredValue: CustomStringConvertible {
    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}
