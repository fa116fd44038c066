/// Moves one attribute's values between JSON, the object's storage (`Any`) and the store
/// (`StoredValue`).
///
/// One codec is made per attribute when its entity is described, chosen by the
/// attribute's Swift type; from then on the per-row paths are a virtual call each, with no
/// reflection and no type lookup.
protocol AttributeCodec: Sendable {
    var storedType: StoredType { get }
    /// Whether every value is a plain value: one of the value types `StorableValue` covers,
    /// optional or not, which may move to another context with its object (`DetachedObject`).
    var holdsPlainValues: Bool { get }
    /// Whether `read` is the column read as it is, through `StorableValue.read` (and NULL as
    /// `nil` for an optional): then a fetch may read it straight into the object's wrapper
    /// (`StorableValue.readIntoPlainSlot`), which gives the same value without boxing it.
    var readsColumnAsIs: Bool { get }
    var isOptional: Bool { get }
    /// `Optional<Wrapped>.none` boxed, for an optional attribute never set.
    var nilValue: Any { get }
    /// The Swift type, for messages.
    var typeName: String { get }
    /// The attribute's Swift type, `Optional` included.
    var valueType: Any.Type { get }
    /// Decodes the value for `key`. JSONDecoder's errors pass through; the caller adds the
    /// entity and attribute.
    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any
    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    func storedValue(for value: Any) throws -> StoredValue
    func value(from storedValue: StoredValue) throws -> Any
    /// Reads the value straight from a row's column: the fetch path.
    func read(_ row: any StoreRow, column: Int) throws -> Any
    /// `decode` and `read` with the value boxed as `Optional` of the codec's type, for an
    /// optional attribute's codec to call on its base: the box then holds the attribute's own
    /// type, which its property reads without a cast (see `unboxed`). Codecs that are not
    /// primitive box the plain value, which reads through `as!`.
    func decodeAsOptional(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    func readAsOptional(_ row: any StoreRow, column: Int) throws -> Any
    /// `decode` and `decodeAsOptional` from the byte-level reader's own container, called on
    /// it directly (see `AttributeCodec+Tape.swift`).
    func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any
    func decodeAsOptional(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    /// Some value of the attribute's type, for the probe object that finds which attribute a
    /// key path reads (`EntityDescription.attribute(for:)`); `nil` if none can be made.
    func placeholder() -> Any?
    /// How a query compares and orders the attribute's values.
    var queryKind: QueryKind { get }
}

extension AttributeCodec {
    var holdsPlainValues: Bool { false }
    var readsColumnAsIs: Bool { false }

    func read(_ row: any StoreRow, column: Int) throws -> Any {
        try value(from: row.value(column))
    }

    func decodeAsOptional(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    {
        try decode(from: container, forKey: key)
    }

    func readAsOptional(_ row: any StoreRow, column: Int) throws -> Any {
        try read(row, column: column)
    }
}

/// What a query needs to know of a value's type to compare and order it as Swift does.
enum QueryKind: Sendable, Equatable {
    case integer
    case real
    /// `Float`: stored as a double, so compared exactly, but arithmetic in the store would
    /// run in double precision, not Float's.
    case float
    case text
    case blob
    case bool
    /// ISO 8601 text to the millisecond: compared as text, constants rounded to match.
    case date
    /// Decimal text: compared and ordered by value.
    case decimal
    /// A raw-value enum: equality by raw value only (Swift orders enums by declaration).
    case rawEnum
    /// JSON text (arrays, dictionaries, other `Codable` values).
    case json
    /// `ComparisonResult` and other values without a column of their own.
    case other
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
    /// `Wrapped`, for declarations that depend on the value type (`.lossless`, `normalized:`).
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalAttributeValue where Wrapped: Codable {
    static var wrappedType: Any.Type { Wrapped.self }

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

/// A column of a type stores keep natively (see `StorableValue`).
struct PrimitiveCodec<Value: StorableValue>: AttributeCodec {
    var storedType: StoredType { Value.storedType }
    var holdsPlainValues: Bool { true }
    var readsColumnAsIs: Bool { true }
    var isOptional: Bool { false }
    var typeName: String { String(describing: Value.self) }
    var valueType: Any.Type { Value.self }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try Value.decodeBoxed(from: container, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try container.encode(value as! Value, forKey: key)
    }

    func storedValue(for value: Any) throws -> StoredValue {
        try Value.storedValue(ofBoxed: value)
    }

    func value(from storedValue: StoredValue) throws -> Any {
        guard let value = Value(storedValue: storedValue) else {
            throw StashError(
                .invalidValue, "the stored \(storedValue.kindName) value \(storedValue) cannot be read as \(typeName)")
        }
        return value
    }

    func read(_ row: any StoreRow, column: Int) throws -> Any {
        if let value = Value.readBoxed(row, column: column) { return value }
        return try value(from: row.value(column))
    }

    func decodeAsOptional(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    {
        try Value.decodeBoxedOptional(from: container, forKey: key)
    }

    func readAsOptional(_ row: any StoreRow, column: Int) throws -> Any {
        if let value = Value.readBoxedOptional(row, column: column) { return value }
        return try convertedAsOptional(row.value(column))
    }

    /// `readAsOptional`'s slow way, apart: inline, the function asked the runtime for
    /// `Optional<Value>`'s metadata on every call, taken or not (12,000 of a 20,000-row fetch).
    @inline(never)
    private func convertedAsOptional(_ stored: StoredValue) throws -> Any {
        Value?.some(unboxed(try value(from: stored), as: Value.self)) as Any
    }

    func placeholder() -> Any? { Value.placeholder }

    var queryKind: QueryKind { Value.queryKind }
}

/// An optional attribute: `nil` is NULL in the store and an absent or null key in JSON.
struct OptionalCodec<Wrapped>: AttributeCodec {
    let base: any AttributeCodec
    /// `Wrapped?.none`, boxed once: in this unspecialized generic code, boxing it anew asks the
    /// runtime for `Optional<Wrapped>`'s metadata, about 325 instructions for every NULL read
    /// (6.5M of a 20,000-row fetch, stash-bench under callgrind).
    // Unsafe: `Any` is not `Sendable`, but this one holds no value at all, only `.none`.
    nonisolated(unsafe) let nilValue: Any

    init(base: any AttributeCodec) {
        self.base = base
        nilValue = Wrapped?.none as Any
    }

    var storedType: StoredType { base.storedType }
    var holdsPlainValues: Bool { base.holdsPlainValues }
    var readsColumnAsIs: Bool { base.readsColumnAsIs }
    var isOptional: Bool { true }
    var typeName: String { base.typeName + "?" }
    var valueType: Any.Type { Wrapped?.self }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        if try container.decodeNil(forKey: key) { return nilValue }
        return try base.decodeAsOptional(from: container, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        guard let wrapped = unboxed(value, as: Wrapped?.self) else { return }
        try base.encode(wrapped, to: &container, forKey: key)
    }

    func storedValue(for value: Any) throws -> StoredValue {
        guard let wrapped = unboxed(value, as: Wrapped?.self) else { return .null }
        return try base.storedValue(for: wrapped)
    }

    func value(from storedValue: StoredValue) throws -> Any {
        if case .null = storedValue { return nilValue }
        return try base.value(from: storedValue)
    }

    func read(_ row: any StoreRow, column: Int) throws -> Any {
        if row.isNull(column) { return nilValue }
        return try base.readAsOptional(row, column: column)
    }

    /// The wrapped type's placeholder, so that `note.map { … }` is told from `note`.
    func placeholder() -> Any? {
        guard let wrapped = base.placeholder() as? Wrapped else { return Wrapped?.none as Any }
        return Wrapped?.some(wrapped) as Any
    }

    var queryKind: QueryKind { base.queryKind }
}

/// An enum stored as its raw value; decoded and encoded with the enum's own `Codable`.
/// `Value` and `Representable` are the same type, seen through its two conformances.
struct RawValueCodec<Value: Codable, Representable: RawRepresentable>: AttributeCodec {
    let base: any AttributeCodec
    var storedType: StoredType { base.storedType }
    var isOptional: Bool { false }
    var typeName: String { String(describing: Value.self) }
    var valueType: Any.Type { Value.self }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try container.decode(Value.self, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try container.encode(value as! Value, forKey: key)
    }

    func storedValue(for value: Any) throws -> StoredValue {
        try base.storedValue(for: (value as! Representable).rawValue)
    }

    func value(from storedValue: StoredValue) throws -> Any {
        let raw = try base.value(from: storedValue) as? Representable.RawValue
        guard let value = raw.flatMap(Representable.init(rawValue:)) else {
            throw StashError(.invalidValue, "the stored value \(storedValue) is not a case of \(typeName)")
        }
        return value
    }

    /// The first case: `CaseIterable`'s, the one whose raw value is the base's placeholder,
    /// or, for an enum without payloads (one byte or less, no references), the case with tag 0.
    func placeholder() -> Any? {
        if let cases = Value.self as? any CaseIterable.Type, let first = firstCase(of: cases) { return first }
        if let raw = base.placeholder() as? Representable.RawValue, let value = Representable(rawValue: raw) {
            return value
        }
        guard MemoryLayout<Value>.size <= 1, _isPOD(Value.self) else { return nil }
        return withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
            let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
            if MemoryLayout<Value>.size == 1 { raw.storeBytes(of: 0, as: UInt8.self) }
            return raw.load(as: Value.self)
        }
    }

    var queryKind: QueryKind { .rawEnum }
}

private func firstCase<Cases: CaseIterable>(of type: Cases.Type) -> Any? {
    Cases.allCases.first
}
