import Foundation

/// A Swift type with a stored kind of its own, in a form the `sqlite3` shell shows as is.
///
/// | Swift                          | stored  | as                                         |
/// |--------------------------------|---------|--------------------------------------------|
/// | Int, Int8…Int64, UInt8…UInt64  | integer | the number (UInt64 above Int64.max fails)  |
/// | Bool                           | integer | 0 or 1                                     |
/// | Double, Float                  | real    | the number                                 |
/// | String                         | text    | UTF-8, NUL characters kept                 |
/// | Date                           | text    | ISO 8601 in UTC, milliseconds: `2024-05-01T09:30:00.250Z` |
/// | URL                            | text    | `absoluteString`                           |
/// | UUID                           | text    | lowercase, `8-4-4-4-12`                    |
/// | Decimal                        | text    | its exact decimal digits: `12.50` is `12.5`|
/// | Data                           | blob    | the bytes                                  |
///
/// Dates are text so that they read well and sort in time order as text; they keep
/// milliseconds, which is what JSON APIs send.
protocol StorableValue: Codable, SendableMetatype {
    static var storedType: StoredType { get }
    /// A value of the type that few computed properties would return unchanged (see
    /// `AttributeCodec.placeholder`).
    static var placeholder: Self { get }
    /// How a query compares the type's values; by default what its stored kind says.
    static var queryKind: QueryKind { get }
    func storedValue() throws -> StoredValue
    /// `nil` when the stored value is not of this type.
    init?(storedValue: StoredValue)
    /// Decodes through the container's concrete overload where there is one: JSONDecoder
    /// has fast paths for the standard scalar types that a generic call would miss.
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Self
    /// Reads a row's `column` through the row's typed accessors where the type allows;
    /// `nil` when it holds another kind of value (the codec then reports it).
    static func read(_ row: any StoreRow, column: Int) -> Self?

    // The same operations with the value boxed as `Any`, which is how values cross between
    // objects and the context.
    // Implemented once below; being requirements, each conformance gets them specialized,
    // so the generic codec never handles `Self` or `Self?` generically (that costs a type
    // metadata lookup per call).
    static func decodeBoxed(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    static func storedValue(ofBoxed value: Any) throws -> StoredValue
    static func readBoxed(_ row: any StoreRow, column: Int) -> Any?
    // Boxed as `Self?`, for optional attributes (see `AttributeCodec.readAsOptional`).
    static func decodeBoxedOptional(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    static func readBoxedOptional(_ row: any StoreRow, column: Int) -> Any?
    // The same three from the byte-level reader's own container (see `StorableValue+Tape.swift`).
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Self
    static func decodeBoxed(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    static func decodeBoxedOptional(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any

    // A wrapper's value read and written in place, as `Attribute<Self>` and as
    // `Attribute<Self?>` (see `SlotAccess`).
    static func plainSlotValue(at wrapper: UnsafeRawPointer) -> Any?
    static func setPlainSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer)
    static func plainSlotIsSet(at wrapper: UnsafeRawPointer) -> Bool
    static func optionalSlotValue(at wrapper: UnsafeRawPointer) -> Any?
    static func setOptionalSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer)
    static func optionalSlotIsSet(at wrapper: UnsafeRawPointer) -> Bool
    static func fillPlainSlot(_ value: Any, at wrapper: UnsafeMutableRawPointer)
    static func fillOptionalSlot(_ value: Any, at wrapper: UnsafeMutableRawPointer)
    /// A row's column read straight into `Attribute<Self>` at `wrapper`, as `read` reads it;
    /// `false` (nothing written) when the column holds another kind of value.
    static func readIntoPlainSlot(_ row: any StoreRow, column: Int, at wrapper: UnsafeMutableRawPointer) -> Bool
    /// The same into `Attribute<Self?>`: NULL is `nil`.
    static func readIntoOptionalSlot(_ row: any StoreRow, column: Int, at wrapper: UnsafeMutableRawPointer) -> Bool
    /// The value of `Attribute<Self>` at `wrapper` as stored, NULL when unset: what
    /// `storedValue(ofBoxed:)` makes of it, without boxing it first.
    static func storedValueOfPlainSlot(at wrapper: UnsafeRawPointer) throws -> StoredValue
    /// The same of `Attribute<Self?>`: `nil` is NULL.
    static func storedValueOfOptionalSlot(at wrapper: UnsafeRawPointer) throws -> StoredValue

    /// The value as a read of its row gives it back, for the kinds the store may keep
    /// otherwise (`EntityDescription.storeAdjusted`: dates, floating-point numbers): a date
    /// rounded to the millisecond, a number as it is; `nil` for a number the store keeps
    /// otherwise (NaN, -0.0) or a date it cannot keep. Itself for the other types, which are
    /// never asked.
    func roundTripped() -> Self?
    /// Whether `Attribute<Self>` at `wrapper` holds a value that comes back from the store as
    /// it is or rounded (`roundTripped`), and if so, with `write`, rounds it in place; an
    /// unset slot passes unchanged.
    static func roundTripPlainSlot(at wrapper: UnsafeMutableRawPointer, write: Bool) -> Bool
    /// The same of `Attribute<Self?>`: `nil` comes back as it is.
    static func roundTripOptionalSlot(at wrapper: UnsafeMutableRawPointer, write: Bool) -> Bool
}

extension StorableValue {
    func roundTripped() -> Self? { self }

    static var queryKind: QueryKind {
        switch storedType {
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

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

    static func storedValue(ofBoxed value: Any) throws -> StoredValue {
        try unboxed(value, as: Self.self).storedValue()
    }

    static func readBoxed(_ row: any StoreRow, column: Int) -> Any? {
        guard let value = read(row, column: column) else { return nil }
        return value
    }

    static func decodeBoxedOptional(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    {
        Self?.some(try decode(from: container, forKey: key)) as Any
    }

    static func readBoxedOptional(_ row: any StoreRow, column: Int) -> Any? {
        guard let value = read(row, column: column) else { return nil }
        return Self?.some(value) as Any
    }

    static func read(_ row: any StoreRow, column: Int) -> Self? {
        Self(storedValue: row.value(column))
    }
}

// MARK: Integers

extension StorableValue where Self: FixedWidthInteger {
    static var storedType: StoredType { .integer }
    static var placeholder: Self { 37 }

    func storedValue() throws -> StoredValue {
        guard let integer = Int64(exactly: self) else {
            throw StashError(.invalidValue, "\(self) does not fit a 64-bit signed integer")
        }
        return .integer(integer)
    }

    init?(storedValue: StoredValue) {
        guard case .integer(let integer) = storedValue, let value = Self(exactly: integer) else { return nil }
        self = value
    }
}

extension Int: StorableValue {
    func storedValue() -> StoredValue { .integer(Int64(self)) }

    static func read(_ row: any StoreRow, column: Int) -> Int? {
        row.integer(column).map { Int($0) }
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
    static var storedType: StoredType { .integer }
    static var placeholder: Bool { false }
    static var queryKind: QueryKind { .bool }
    func storedValue() -> StoredValue { .integer(self ? 1 : 0) }

    init?(storedValue: StoredValue) {
        guard case .integer(let integer) = storedValue, integer == 0 || integer == 1 else { return nil }
        self = integer == 1
    }

    static func read(_ row: any StoreRow, column: Int) -> Bool? {
        switch row.integer(column) {
        case 0: false
        case 1: true
        default: nil
        }
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Bool
    {
        try container.decode(Bool.self, forKey: key)
    }
}

extension Double: StorableValue {
    static var storedType: StoredType { .real }
    static var placeholder: Double { 37.5 }
    func storedValue() -> StoredValue { .real(self) }
    /// SQLite keeps NaN as NULL and -0.0 as 0.0.
    func roundTripped() -> Double? { isNaN || (self == 0 && sign == .minus) ? nil : self }

    init?(storedValue: StoredValue) {
        switch storedValue {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: return nil
        }
    }

    static func read(_ row: any StoreRow, column: Int) -> Double? {
        row.real(column) ?? Double(storedValue: row.value(column))
    }

    /// NaN is refused: SQLite stores it as NULL, so it would come back as nil, or fail the
    /// save of a required attribute. (The infinities are kept.)
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Double
    {
        let value = try container.decode(Double.self, forKey: key)
        if value.isNaN { throw notANumber(container, key) }
        return value
    }
}

extension Float: StorableValue {
    static var storedType: StoredType { .real }
    static var queryKind: QueryKind { .float }
    static var placeholder: Float { 37.5 }
    func storedValue() -> StoredValue { .real(Double(self)) }
    func roundTripped() -> Float? { isNaN || (self == 0 && sign == .minus) ? nil : self }

    init?(storedValue: StoredValue) {
        guard let double = Double(storedValue: storedValue) else { return nil }
        self = Float(double)
    }

    /// NaN is refused, as for `Double`.
    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Float
    {
        let value = try container.decode(Float.self, forKey: key)
        if value.isNaN { throw notANumber(container, key) }
        return value
    }
}

/// The error for a NaN decoded (through a non-conforming float strategy) for a number attribute.
func notANumber(_ container: KeyedDecodingContainer<AttributeKey>, _ key: AttributeKey) -> DecodingError {
    DecodingError.dataCorrupted(
        DecodingError.Context(
            codingPath: container.codingPath + [key],
            debugDescription: "NaN cannot be stored: SQLite keeps it as NULL, so it would read back as nil"))
}

extension String: StorableValue {
    static var storedType: StoredType { .text }
    static var placeholder: String { "Stash probe" }
    func storedValue() -> StoredValue { .text(self) }

    static func read(_ row: any StoreRow, column: Int) -> String? {
        row.text(column)
    }

    init?(storedValue: StoredValue) {
        guard case .text(let text) = storedValue else { return nil }
        self = text
    }

    static func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> String
    {
        try container.decode(String.self, forKey: key)
    }
}

extension Data: StorableValue {
    static var storedType: StoredType { .blob }
    static var placeholder: Data { Data([0x37]) }
    func storedValue() -> StoredValue { .blob([UInt8](self)) }

    init?(storedValue: StoredValue) {
        guard case .blob(let bytes) = storedValue else { return nil }
        self = Data(bytes)
    }
}

extension Date: StorableValue {
    static var storedType: StoredType { .text }
    static var placeholder: Date { Date(timeIntervalSince1970: 1_000_000_000.125) }
    static var queryKind: QueryKind { .date }
    func storedValue() throws -> StoredValue { .text(try StoredDate.string(from: self)) }
    func roundTripped() -> Date? { StoredDate.rounded(self) }

    static func read(_ row: any StoreRow, column: Int) -> Date? {
        if let date = row.withUTF8(column, StoredDate.date(fromUTF8:)) { return date }
        return Date(storedValue: row.value(column))
    }

    init?(storedValue: StoredValue) {
        switch storedValue {
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
    static var storedType: StoredType { .text }
    static var placeholder: URL { URL(string: "stash:probe")! }
    func storedValue() -> StoredValue { .text(absoluteString) }

    init?(storedValue: StoredValue) {
        guard case .text(let text) = storedValue, let url = URL(string: text) else { return nil }
        self = url
    }

    static func read(_ row: any StoreRow, column: Int) -> URL? {
        row.text(column).flatMap(URL.init(string:))
    }
}

extension UUID: StorableValue {
    static var storedType: StoredType { .text }
    static var placeholder: UUID { UUID(uuid: (0x37, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0x37)) }
    func storedValue() -> StoredValue { .text(uuidString.lowercased()) }

    init?(storedValue: StoredValue) {
        guard case .text(let text) = storedValue, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}

extension Decimal: StorableValue {
    static var storedType: StoredType { .text }
    static var placeholder: Decimal { Decimal(string: "37.5")! }
    static var queryKind: QueryKind { .decimal }
    func storedValue() -> StoredValue { .text(description) }

    init?(storedValue: StoredValue) {
        switch storedValue {
        case .text(let text):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = decimal
        case .integer(let integer): self = Decimal(integer)
        default: return nil
        }
    }
}
