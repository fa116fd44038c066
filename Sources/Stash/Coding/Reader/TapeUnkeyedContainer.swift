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

    /// Reads the current element with `read` and moves past it.
    @inline(__always)
    private mutating func next<T>(_ type: T.Type, _ read: (ReaderDocument, Int, ReaderPlace) throws -> T) throws -> T {
        try checkNotAtEnd(type)
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
        return try next(type) { try decoder.value(type, at: $1, $2) }
    }

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
        try checkNotAtEnd((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
        return try next((any Decoder).self) {
            TapeDecoder(document: $0, index: $1, path: $2.node)
        }
    }
}
