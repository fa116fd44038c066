/// The SQL type of an attribute's column.
enum ColumnType: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"
}

/// Moves one attribute's values between JSON, the object's storage (`Any`) and SQLite.
///
/// One codec is made per attribute when its entity is described, chosen by the
/// attribute's Swift type; from then on the per-row paths are a virtual call each, with no
/// reflection and no type lookup.
protocol AttributeCodec: Sendable {
    var columnType: ColumnType { get }
    var isOptional: Bool { get }
    /// `Optional<Wrapped>.none` boxed, for an optional attribute never set.
    var nilValue: Any { get }
    /// The Swift type, for messages.
    var typeName: String { get }
    /// Decodes the value for `key`. JSONDecoder's errors pass through; the caller adds the
    /// entity and attribute.
    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any
    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    func sqlValue(for value: Any) throws -> SQLValue
    func value(from sqlValue: SQLValue) throws -> Any
    /// Binds the value straight to a statement parameter: the insert path.
    func bind(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws
    /// Reads the value straight from a result column: the fetch path.
    func read(_ statement: SQLiteStatement, column: Int32) throws -> Any
}

extension AttributeCodec {
    func bind(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(try sqlValue(for: value), at: index)
    }

    func read(_ statement: SQLiteStatement, column: Int32) throws -> Any {
        try value(from: statement.column(column))
    }
}

/// The codec for an attribute of type `Value`, chosen once per attribute:
/// - `Optional` wraps the codec of its `Wrapped` type and maps `nil` to NULL;
/// - Int (all widths), Double, Float, Bool, String, Date, URL, UUID, Data and Decimal
///   have columns of their own kind (see `StorableValue`);
/// - an enum with a raw value of one of those is stored as its raw value;
/// - anything else `Codable` (arrays, dictionaries, nested structs) is stored as JSON text.
func makeAttributeCodec<Value: Codable>(for type: Value.Type) throws -> any AttributeCodec {
    if let optional = Value.self as? any OptionalAttributeValue.Type {
        return try optional.makeOptionalCodec()
    }
    if let storable = Value.self as? any StorableValue.Type {
        return storable.makePrimitiveCodec()
    }
    if let representable = Value.self as? any RawRepresentable.Type,
        let codec = makeRawValueCodec(Value.self, representable)
    {
        return codec
    }
    return JSONTextCodec<Value>()
}

/// Lets `makeAttributeCodec` see through `Optional` without knowing `Wrapped`.
extension AttributeCodec {
    var nilValue: Any { preconditionFailure("\(typeName) is not optional") }
}

protocol OptionalAttributeValue {
    static func makeOptionalCodec() throws -> any AttributeCodec
}

extension Optional: OptionalAttributeValue where Wrapped: Codable {
    static func makeOptionalCodec() throws -> any AttributeCodec {
        if Wrapped.self is any OptionalAttributeValue.Type {
            throw StashError(.invalidModel, "a doubly optional attribute (\(Self.self)) cannot be stored")
        }
        return OptionalCodec<Wrapped>(base: try makeAttributeCodec(for: Wrapped.self))
    }
}

private func makeRawValueCodec<Value: Codable, Representable: RawRepresentable>(
    _ value: Value.Type, _ representable: Representable.Type
) -> (any AttributeCodec)? {
    guard let rawType = Representable.RawValue.self as? any StorableValue.Type else { return nil }
    return RawValueCodec<Value, Representable>(base: rawType.makePrimitiveCodec())
}

/// A column of a type that SQLite stores natively (see `StorableValue`).
struct PrimitiveCodec<Value: StorableValue>: AttributeCodec {
    var columnType: ColumnType { Value.columnType }
    var isOptional: Bool { false }
    var typeName: String { String(describing: Value.self) }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try Value.decodeBoxed(from: container, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try container.encode(value as! Value, forKey: key)
    }

    func sqlValue(for value: Any) throws -> SQLValue {
        try (value as! Value).sqlValue()
    }

    func value(from sqlValue: SQLValue) throws -> Any {
        guard let value = Value(sqlValue: sqlValue) else {
            throw StashError(.invalidValue, "the stored value \(sqlValue.typeName) cannot be read as \(typeName)")
        }
        return value
    }

    func bind(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws {
        try Value.bindBoxed(value, to: statement, at: index)
    }

    func read(_ statement: SQLiteStatement, column: Int32) throws -> Any {
        if let value = Value.readBoxed(statement, column: column) { return value }
        return try value(from: statement.column(column))
    }
}

/// An optional attribute: `nil` is NULL in the store and an absent or null key in JSON.
struct OptionalCodec<Wrapped>: AttributeCodec {
    let base: any AttributeCodec
    var columnType: ColumnType { base.columnType }
    var isOptional: Bool { true }
    var nilValue: Any { Wrapped?.none as Any }
    var typeName: String { base.typeName + "?" }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        if try container.decodeNil(forKey: key) { return Wrapped?.none as Any }
        return try base.decode(from: container, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        guard let wrapped = value as! Wrapped? else { return }
        try base.encode(wrapped, to: &container, forKey: key)
    }

    func sqlValue(for value: Any) throws -> SQLValue {
        guard let wrapped = value as! Wrapped? else { return .null }
        return try base.sqlValue(for: wrapped)
    }

    func value(from sqlValue: SQLValue) throws -> Any {
        if case .null = sqlValue { return Wrapped?.none as Any }
        return try base.value(from: sqlValue)
    }

    func bind(_ value: Any, to statement: SQLiteStatement, at index: Int32) throws {
        guard let wrapped = value as! Wrapped? else { return try statement.bind(.null, at: index) }
        try base.bind(wrapped, to: statement, at: index)
    }

    func read(_ statement: SQLiteStatement, column: Int32) throws -> Any {
        if statement.isNull(column) { return Wrapped?.none as Any }
        return try base.read(statement, column: column)
    }
}

/// An enum stored as its raw value; decoded and encoded with the enum's own `Codable`.
/// `Value` and `Representable` are the same type, seen through its two conformances.
struct RawValueCodec<Value: Codable, Representable: RawRepresentable>: AttributeCodec {
    let base: any AttributeCodec
    var columnType: ColumnType { base.columnType }
    var isOptional: Bool { false }
    var typeName: String { String(describing: Value.self) }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try container.decode(Value.self, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try container.encode(value as! Value, forKey: key)
    }

    func sqlValue(for value: Any) throws -> SQLValue {
        try base.sqlValue(for: (value as! Representable).rawValue)
    }

    func value(from sqlValue: SQLValue) throws -> Any {
        let raw = try base.value(from: sqlValue) as? Representable.RawValue
        guard let value = raw.flatMap(Representable.init(rawValue:)) else {
            throw StashError(.invalidValue, "the stored value \(sqlValue) is not a case of \(typeName)")
        }
        return value
    }
}
