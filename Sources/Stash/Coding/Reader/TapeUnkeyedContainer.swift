/// An array of a `JSONTape`, element by element.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let path: ReaderPath
    let count: Int?
    private(set) var currentIndex = 0
    /// The node of the element at `currentIndex`.
    private var position: Int

    init(decoder: TapeDecoder, array: Int, path: ReaderPath) {
        self.decoder = decoder
        self.path = path
        self.count = decoder.document.node(array).start
        self.position = array + 1
    }

    var codingPath: [any CodingKey] { path.keys }
    var isAtEnd: Bool { currentIndex >= count! }

    private var document: ReaderDocument { decoder.document }

    @inline(__always)
    private var place: ReaderPlace { ReaderPlace(path, .index(currentIndex)) }

    /// JSONDecoder's error past the last element (its own text for `superDecoder()`).
    private func checkNotAtEnd(_ type: Any.Type, _ message: String = "Unkeyed container is at end.") throws {
        document.checkOpen()
        guard isAtEnd else { return }
        throw DecodingError.valueNotFound(type, .init(codingPath: place.keys, debugDescription: message))
    }

    private mutating func advance() {
        position = document.next(after: position)
        currentIndex += 1
    }

    /// Reads the current element with `read` and moves past it; past the end, fails with
    /// `atEnd`.
    @inline(__always)
    private mutating func next<T>(
        _ type: T.Type, atEnd: String = "Unkeyed container is at end.",
        _ read: (ReaderDocument, Int, ReaderPlace) throws -> T
    ) throws -> T {
        try checkNotAtEnd(type, atEnd)
        let value = try read(decoder.document, position, place)
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Never.self)
        guard document.node(position).kind == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool(at: $1, $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string(at: $1, $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try next(type) { try $0.floatingPoint(type, at: $1, $2) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try next(type) { try $0.floatingPoint(type, at: $1, $2) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type, at: $1, $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type, at: $1, $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type, at: $1, $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try next(type) { try $0.integer(type, at: $1, $2) }
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = self.decoder
        if currentIndex == 0, let count, count >= Self.reservedFrom, let context = document.context,
            document.node(position).kind == .object
        {
            context.expectDecodedObjects(count, of: type)
        }
        return try next(type) { try decoder.value(type, at: $1, $2) }
    }

    /// From how many elements an array of models makes room for them first (see
    /// `ManagedObjectContext.expectDecodedObjects`).
    private static let reservedFrom = 64

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let decoder = self.decoder
        return try next(KeyedDecodingContainer<NestedKey>.self) {
            KeyedDecodingContainer(try decoder.keyedContainer(keyedBy: type, at: $1, $2.node))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let decoder = self.decoder
        return try next((any UnkeyedDecodingContainer).self) { try decoder.unkeyedContainer(at: $1, $2.node) }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.") {
            TapeDecoder(document: $0, index: $1, path: $2.node)
        }
    }

    // MARK: If present

    /// JSONDecoder's `decodeIfPresent`: `nil` for a null or past the end, where it still moves
    /// the index on (the protocol's default leaves it).
    private mutating func ifPresent<T>(_ read: (inout Self) throws -> T) throws -> T? {
        document.checkOpen()
        if isAtEnd {
            currentIndex += 1
            return nil
        }
        if try decodeNil() { return nil }
        return try read(&self)
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? { try ifPresent { try $0.decode(type) } }
}
