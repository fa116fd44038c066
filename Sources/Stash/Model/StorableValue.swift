import Foundation

/// A Swift type with a column of its own kind, in a form the `sqlite3` shell shows as is.
///
/// | Swift                          | column  | stored as                                  |
/// |--------------------------------|---------|--------------------------------------------|
/// | Int, Int8…Int64, UInt8…UInt64  | INTEGER | the number (UInt64 above Int64.max fails)  |
/// | Bool                           | INTEGER | 0 or 1                                     |
/// | Double, Float                  | REAL    | the number                                 |
/// | String                         | TEXT    | UTF-8, NUL characters kept                 |
/// | Date                           | TEXT    | ISO 8601 in UTC, milliseconds: `2024-05-01T09:30:00.250Z` |
/// | URL                            | TEXT    | `absoluteString`                           |
/// | UUID                           | TEXT    | lowercase, `8-4-4-4-12`                    |
/// | Decimal                        | TEXT    | its exact decimal digits: `12.50` is `12.5`|
/// | Data                           | BLOB    | the bytes                                  |
///
/// Dates are text so that they read well and sort in time order as text; they keep
/// milliseconds, which is what JSON APIs send.
protocol StorableValue: Codable {
    static var columnType: ColumnType { get }
    func sqlValue() throws -> SQLValue
    /// `nil` when the stored value is not of this type.
    init?(sqlValue: SQLValue)
    /// Decodes through the container's concrete overload where there is one: JSONDecoder
    /// has fast paths for the standard scalar types that a generic call would miss.
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Self
    /// Binds without an `SQLValue` in between where the type allows.
    func bind(to statement: SQLiteStatement, at index: Int32) throws
    /// Reads the current row's `column`; `nil` when it holds another kind of value (the
    /// codec then reports it).
    static func read(_ statement: SQLiteStatement, column: Int32) -> Self?

    // The same operations with the value boxed as `Any`, which is how objects store it.
    // Implemented once below; being requirements, each conformance gets them specialized,
    // so the generic codec never handles `Self` or `Self?` generically (that costs a type
    // metadata lookup per call).
    static func decodeBoxed(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    static func bindBoxed(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws
    static func readBoxed(_ statement: SQLiteStatement, column: Int32) -> Any?
}

extension StorableValue {
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Self
    {
        try container.decode(Self.self, forKey: key)
    }

    static func makePrimitiveCodec() -> any AttributeCodec {
        PrimitiveCodec<Self>()
    }

    static func decodeBoxed(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    {
        try decode(from: container, forKey: key)
    }

    static func bindBoxed(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws {
        try (value as! Self).bind(to: statement, at: index)
    }

    static func readBoxed(_ statement: SQLiteStatement, column: Int32) -> Any? {
        guard let value = read(statement, column: column) else { return nil }
        return value
    }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(try sqlValue(), at: index)
    }

    static func read(_ statement: SQLiteStatement, column: Int32) -> Self? {
        Self(sqlValue: statement.column(column))
    }
}

// MARK: Integers

extension StorableValue where Self: FixedWidthInteger {
    static var columnType: ColumnType { .integer }

    func sqlValue() throws -> SQLValue {
        guard let integer = Int64(exactly: self) else {
            throw StashError(.invalidValue, "\(self) does not fit SQLite's 64-bit signed integer")
        }
        return .integer(integer)
    }

    init?(sqlValue: SQLValue) {
        guard case .integer(let integer) = sqlValue, let value = Self(exactly: integer) else { return nil }
        self = value
    }
}

extension Int: StorableValue {
    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(Int64(self), at: index)
    }

    static func read(_ statement: SQLiteStatement, column: Int32) -> Int? {
        statement.isInteger(column) ? Int(statement.int64(column)) : nil
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Int
    {
        try container.decode(Int.self, forKey: key)
    }

}
extension Int8: StorableValue {}
extension Int16: StorableValue {}
extension Int32: StorableValue {}
extension Int64: StorableValue {
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Int64
    {
        try container.decode(Int64.self, forKey: key)
    }

}
extension UInt: StorableValue {}
extension UInt8: StorableValue {}
extension UInt16: StorableValue {}
extension UInt32: StorableValue {}
extension UInt64: StorableValue {}

// MARK: Other scalars

extension Bool: StorableValue {
    static var columnType: ColumnType { .integer }
    func sqlValue() -> SQLValue { .integer(self ? 1 : 0) }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(Int64(self ? 1 : 0), at: index)
    }

    init?(sqlValue: SQLValue) {
        guard case .integer(let integer) = sqlValue, integer == 0 || integer == 1 else { return nil }
        self = integer == 1
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Bool
    {
        try container.decode(Bool.self, forKey: key)
    }

}

extension Double: StorableValue {
    static var columnType: ColumnType { .real }
    func sqlValue() -> SQLValue { .real(self) }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(self, at: index)
    }

    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: return nil
        }
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Double
    {
        try container.decode(Double.self, forKey: key)
    }

}

extension Float: StorableValue {
    static var columnType: ColumnType { .real }
    func sqlValue() -> SQLValue { .real(Double(self)) }

    init?(sqlValue: SQLValue) {
        guard let double = Double(sqlValue: sqlValue) else { return nil }
        self = Float(double)
    }
}

extension String: StorableValue {
    static var columnType: ColumnType { .text }
    func sqlValue() -> SQLValue { .text(self) }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(self, at: index)
    }

    static func read(_ statement: SQLiteStatement, column: Int32) -> String? {
        statement.isText(column) ? statement.text(column) : nil
    }

    init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> String
    {
        try container.decode(String.self, forKey: key)
    }

}

extension Data: StorableValue {
    static var columnType: ColumnType { .blob }
    func sqlValue() -> SQLValue { .blob([UInt8](self)) }

    init?(sqlValue: SQLValue) {
        guard case .blob(let bytes) = sqlValue else { return nil }
        self = Data(bytes)
    }
}

extension Date: StorableValue {
    static var columnType: ColumnType { .text }
    func sqlValue() throws -> SQLValue { .text(try StoredDate.string(from: self)) }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(try StoredDate.string(from: self), at: index)
    }

    static func read(_ statement: SQLiteStatement, column: Int32) -> Date? {
        guard statement.isText(column) else { return Date(sqlValue: statement.column(column)) }
        return statement.withText(column, StoredDate.date(fromUTF8:))
    }

    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .text(let text):
            guard let date = StoredDate.date(from: text) else { return nil }
            self = date
        case .integer(let seconds): self = Date(timeIntervalSince1970: Double(seconds))
        case .real(let seconds): self = Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension URL: StorableValue {
    static var columnType: ColumnType { .text }
    func sqlValue() -> SQLValue { .text(absoluteString) }

    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(absoluteString, at: index)
    }

    init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue, let url = URL(string: text) else { return nil }
        self = url
    }
}

extension UUID: StorableValue {
    static var columnType: ColumnType { .text }
    func sqlValue() -> SQLValue { .text(uuidString.lowercased()) }

    init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}

extension Decimal: StorableValue {
    static var columnType: ColumnType { .text }
    func sqlValue() -> SQLValue { .text(description) }

    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .text(let text):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = decimal
        case .integer(let integer): self = Decimal(integer)
        default: return nil
        }
    }
}
