import Foundation

/// A `Decoder` over a `JSONTape`, for `ManagedObjectContext.decode(_:from:using:)`: what
/// JSONDecoder does with the same settings, value for value and error for error (see
/// `ReaderDecodable` for when it is used), at a fraction of the cost.
///
/// One decoder serves a whole decode: decoding a nested value moves it to that value and
/// back, as JSONDecoder's own does; containers keep their own place.
final class TapeDecoder: Decoder, SingleValueDecodingContainer {
    let document: ReaderDocument
    // Unchecked, these four: one decode uses the decoder, on one thread, and the runtime's
    // check on each move cost about 500 instructions a record (see docs/ARCHITECTURE.md).
    @exclusivity(unchecked) private(set) var index: Int
    /// Where the current value is; joined into a `ReaderPath` only when a container or an
    /// error needs it, so a date read through a custom strategy allocates nothing.
    @exclusivity(unchecked) private(set) var place: ReaderPlace

    init(document: ReaderDocument, index: Int, path: ReaderPath) {
        self.document = document
        self.index = index
        self.place = ReaderPlace(path)
    }

    private var path: ReaderPath { place.node }

    /// Where the last key was found, and so where the next is looked for first: models
    /// read their keys in the order payloads mostly send them (see `TapeKeyedContainer.find`).
    @exclusivity(unchecked) var hintObject = -1
    @exclusivity(unchecked) var hintMember = 0

    var codingPath: [any CodingKey] { place.keys }
    var userInfo: [CodingUserInfoKey: Any] { document.userInfo }

    /// Decodes `type` from the whole of `data` as `decoder` would have.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, options: ReaderOptions, userInfo: [CodingUserInfoKey: any Sendable]
    ) throws -> T {
        do {
            return try data.withUnsafeBytes { raw in
                var bytes = raw.bindMemory(to: UInt8.self)
                // JSONDecoder skips a UTF-8 byte order mark.
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeBufferPointer(rebasing: bytes.dropFirst(3)) }
                let tape = try JSONTape(bytes: bytes)
                return try tape.nodes.withUnsafeBufferPointer { nodes in
                    let document = ReaderDocument(bytes: bytes, nodes: nodes, options: options, userInfo: userInfo)
                    defer { document.isOpen = false }
                    let decoder = TapeDecoder(document: document, index: 0, path: .root)
                    return try decoder.value(type, at: 0, ReaderPlace(.root))
                }
            }
        } catch let error as JSONReaderError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
    }

    /// Whether the reader takes `data`: UTF-8 as far as JSONDecoder's detection goes (it
    /// reads UTF-16 and UTF-32 too, by a byte order mark or a zero byte among the first
    /// two), and under 4 GB (the tape's offsets); JSONDecoder takes the rest.
    static func reads(_ data: Data) -> Bool {
        guard data.count <= JSONTape.maximumSize else { return false }
        guard data.count >= 2 else { return true }
        let first = data[data.startIndex]
        let second = data[data.startIndex + 1]
        if first == 0 || second == 0 { return false }
        return !((first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE))
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        document.checkOpen()
        return KeyedDecodingContainer(try keyedContainer(keyedBy: type, at: index, path))
    }

    /// The object here as the container `container(keyedBy:)` boxes: `ObjectDecoder`
    /// decodes its attributes on it directly (see `StorableValue+Tape.swift`).
    func attributeContainer() throws -> TapeKeyedContainer<AttributeKey> {
        document.checkOpen()
        return try keyedContainer(keyedBy: AttributeKey.self, at: index, path)
    }

    func keyedContainer<Key: CodingKey>(keyedBy type: Key.Type, at index: Int, _ path: ReaderPath) throws
        -> TapeKeyedContainer<Key>
    {
        let node = document.node(index)
        guard node.kind == .object else {
            if node.kind == .null {
                throw DecodingError.valueNotFound(
                    [String: Any].self,
                    .init(
                        codingPath: path.keys,
                        debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw document.typeMismatch([String: Any].self, at: index, ReaderPlace(path))
        }
        if node.flags & JSONTape.Node.plainKeys == 0 {
            // JSONDecoder reads every key of an object when it opens it.
            var member = index + 1
            while member < node.end {
                _ = try document.text(of: document.node(member))
                member = document.next(after: member + 1)
            }
        }
        return TapeKeyedContainer(decoder: self, object: index, path: path)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        document.checkOpen()
        return try unkeyedContainer(at: index, path)
    }

    func unkeyedContainer(at index: Int, _ path: ReaderPath) throws -> TapeUnkeyedContainer {
        let node = document.node(index)
        guard node.kind == .array else {
            if node.kind == .null {
                throw DecodingError.valueNotFound(
                    [Any].self,
                    .init(
                        codingPath: path.keys,
                        debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw document.typeMismatch([Any].self, at: index, ReaderPlace(path))
        }
        return TapeUnkeyedContainer(decoder: self, array: index, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        document.checkOpen()
        return self
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { document.node(index).kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try document.bool(at: index, place) }
    func decode(_ type: String.Type) throws -> String { try document.string(at: index, place) }
    func decode(_ type: Double.Type) throws -> Double { try document.floatingPoint(type, at: index, place) }
    func decode(_ type: Float.Type) throws -> Float { try document.floatingPoint(type, at: index, place) }
    func decode(_ type: Int.Type) throws -> Int { try document.integer(type, at: index, place) }
    func decode(_ type: Int8.Type) throws -> Int8 { try document.integer(type, at: index, place) }
    func decode(_ type: Int16.Type) throws -> Int16 { try document.integer(type, at: index, place) }
    func decode(_ type: Int32.Type) throws -> Int32 { try document.integer(type, at: index, place) }
    func decode(_ type: Int64.Type) throws -> Int64 { try document.integer(type, at: index, place) }
    func decode(_ type: UInt.Type) throws -> UInt { try document.integer(type, at: index, place) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try document.integer(type, at: index, place) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try document.integer(type, at: index, place) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try document.integer(type, at: index, place) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try document.integer(type, at: index, place) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type, at: index, place) }

    // MARK: Values

    /// The value at `index` as `type`: the types JSONDecoder reads its own way first (dates
    /// and data by their strategies, URLs, decimals, dictionaries keyed by strings), then
    /// the type's own `init(from:)` with this decoder moved to the value.
    func value<T: Decodable>(_ type: T.Type, at index: Int, _ place: @autoclosure () -> ReaderPlace) throws -> T {
        if type == String.self { return try document.string(at: index, place()) as! T }
        if type == Int.self { return try document.integer(Int.self, at: index, place()) as! T }
        if type == Double.self { return try document.floatingPoint(Double.self, at: index, place()) as! T }
        if type == Bool.self { return try document.bool(at: index, place()) as! T }
        if type == Date.self { return try date(at: index, place()) as! T }
        if type == URL.self {
            try document.checkNotNull(URL.self, at: index, place())
            guard let url = URL(string: try document.string(at: index, place())) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: place().keys, debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if type == Data.self { return try data(at: index, place()) as! T }
        if type == Decimal.self {
            try document.checkNotNull(Decimal.self, at: index, place())
            guard document.node(index).kind == .number else {
                throw DecodingError.typeMismatch(Decimal.self, .init(codingPath: place().keys, debugDescription: ""))
            }
            return try ReaderDocument.delegated(Decimal.self, document.rawText(at: index)) as! T
        }
        // JSONDecoder reads a dictionary keyed by strings itself only under a key strategy (to
        // leave its keys as they are); without one, through `Dictionary.init(from:)`, as below.
        // A model (every element of an import) is no dictionary: asked before the conformance,
        // since its class is found by walking superclasses, where the protocol's conformance is
        // looked up in the runtime's cache (300 to 700 instructions a look-up).
        if document.options.convertsFromSnakeCase, !(type is ManagedObject.Type),
            let dictionary = type as? any ReaderStringKeyedDictionary.Type
        {
            return try dictionary.read(at: index, place(), with: self) as! T
        }
        return try moved(to: index, place()) { try T(from: self) }
    }

    /// Runs `body` with this decoder at the value `index`, as JSONDecoder's `with(value:path:)`.
    @inline(__always)
    func moved<Result>(to index: Int, _ place: ReaderPlace, _ body: () throws -> Result) throws -> Result {
        let (outerIndex, outerPlace) = (self.index, self.place)
        self.index = index
        self.place = place
        defer { (self.index, self.place) = (outerIndex, outerPlace) }
        return try body()
    }

    private func date(at index: Int, _ place: @autoclosure () -> ReaderPlace) throws -> Date {
        try document.checkNotNull(Date.self, at: index, place())
        switch document.options.date {
        case .deferredToDate:
            return try moved(to: index, place()) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index, place()))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index, place()) / 1000)
        case .iso8601:
            let text = try document.string(at: index, place())
            if let date = ISO8601Reading.date(from: text) { return date }
            guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                // JSONDecoder names the object holding the date, not its key.
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path.keys, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        case .custom(let closure):
            return try moved(to: index, place()) { try closure(self) }
        }
    }

    private func data(at index: Int, _ place: ReaderPlace) throws -> Data {
        try document.checkNotNull(Data.self, at: index, place)
        switch document.options.data {
        case .deferredToData:
            return try moved(to: index, place) { try Data(from: self) }
        case .base64:
            guard document.node(index).kind == .string else {
                throw document.typeMismatch(String.self, at: index, place)
            }
            // JSONDecoder's base64 reading has its own leniencies: let it read this one.
            do {
                return try ReaderDocument.delegated(Data.self, document.rawText(at: index))
            } catch is DecodingError {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: place.keys, debugDescription: "Encountered Data is not valid Base64."))
            }
        case .custom(let closure):
            return try moved(to: index, place) { try closure(self) }
        }
    }
}
