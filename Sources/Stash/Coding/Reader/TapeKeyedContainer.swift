import Foundation

/// An object of a `JSONTape`, read as JSONDecoder reads it: the first of two equal keys
/// wins, keys compare as Swift strings do, the key strategy applies to the JSON's keys.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let object: Int
    let path: ReaderPath

    var codingPath: [any CodingKey] { path.keys }

    private var document: ReaderDocument { decoder.document }

    /// Every key, once each, as the key strategy gives it (JSONDecoder's order is its
    /// dictionary's, so no order is promised).
    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        forEachKey { name, _ in
            if seen.insert(name).inserted, let key = Key(stringValue: name) { keys.append(key) }
            return false
        }
        return keys
    }

    /// Calls `body` with each member's key (converted) and value index until it answers true.
    private func forEachKey(_ body: (String, Int) -> Bool) {
        let node = document.node(object)
        var member = object + 1
        while member < node.end {
            let keyNode = document.node(member)
            // The keys were read when the container was made, so this does not throw.
            if var name = try? document.text(of: keyNode) {
                if document.options.convertsFromSnakeCase, name.utf8.contains(UInt8(ascii: "_")) {
                    name = SnakeCaseKeys.converted(name)
                }
                if body(name, member + 1) { return }
            }
            member = document.next(after: member + 1)
        }
    }

    /// The index of the value under `key`, or nil.
    @inline(__always)
    func find(_ key: Key) -> Int? { find(named: key.stringValue) }

    /// The index of the value under the key named `name`, or nil: also for a name that is no
    /// `Key` (`superDecoder()`'s "super").
    func find(named name: String) -> Int? {
        let document = self.document
        document.checkOpen()
        let node = document.node(object)
        guard node.start > 0 else { return nil }
        var name = name
        let converts = document.options.convertsFromSnakeCase
        if node.flags & JSONTape.Node.plainKeys != 0 {
            // Every key is ASCII without escapes: compared byte for byte (an ASCII string
            // equals only itself), but for keys the snake-case conversion changes.
            let decoder = self.decoder
            return name.withUTF8 { wanted -> Int? in
                let bytes = document.bytes.baseAddress!
                let nodes = document.nodes
                let count = wanted.count
                let first = count > 0 ? wanted[0] : 0
                @inline(__always)
                func search(from start: Int, to end: Int) -> Int? {
                    var member = start
                    while member < end {
                        let keyNode = nodes[member]
                        if converts, keyNode.flags & JSONTape.Node.underscore != 0 {
                            let raw = String(
                                decoding: UnsafeBufferPointer(
                                    start: bytes + keyNode.start, count: keyNode.end - keyNode.start),
                                as: UTF8.self)
                            if SnakeCaseKeys.converted(raw).utf8.elementsEqual(wanted) { return member }
                        } else if keyNode.end - keyNode.start == count,
                            count == 0
                                || (bytes[keyNode.start] == first
                                    && memcmp(bytes + keyNode.start, wanted.baseAddress!, count) == 0)
                        {
                            return member
                        }
                        let value = nodes[member + 1]
                        member = value.kind == .object || value.kind == .array ? value.end : member + 2
                    }
                    return nil
                }
                // Keys are unique in most objects: then the search starts where the last one
                // was found, and goes round; otherwise from the first key (the first of two
                // equal keys wins, as in JSONDecoder).
                let start =
                    node.flags & JSONTape.Node.duplicates == 0 && decoder.hintObject == object
                    ? decoder.hintMember : object + 1
                guard let member = search(from: start, to: node.end) ?? search(from: object + 1, to: start) else {
                    return nil
                }
                decoder.hintObject = object
                decoder.hintMember = document.next(after: member + 1)
                return member + 1
            }
        }
        var found: Int?
        forEachKey { candidate, value in
            guard candidate == name else { return false }
            found = value
            return true
        }
        return found
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    /// `body` with this container as it is, for an optional one: `tape?.borrowed { … }` reads
    /// it in place, where `if let tape` copies it (two retains and two releases, about 1.7k
    /// instructions a record of stash-bench's import, at each attribute).
    @inline(__always)
    func borrowed<Result>(_ body: (Self) throws -> Result) rethrows -> Result { try body(self) }

    @inline(__always)
    private func value(_ key: Key) throws -> Int {
        guard let index = find(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: path.keys,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    @inline(__always)
    private func place(_ key: Key) -> ReaderPlace { ReaderPlace(path, .key(AnyReaderKey(key))) }

    func decodeNil(forKey key: Key) throws -> Bool { document.node(try value(key)).kind == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try document.bool(at: value(key), place(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try document.string(at: value(key), place(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try document.floatingPoint(type, at: value(key), place(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try document.floatingPoint(type, at: value(key), place(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try document.integer(type, at: value(key), place(key))
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.value(type, at: value(key), place(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(try decoder.keyedContainer(keyedBy: type, at: value(key), place(key).node))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.unkeyedContainer(at: value(key), place(key).node)
    }

    /// A decoder of the value under "super", or of `null`, as JSONDecoder's: by name, since
    /// the container's `Key` (an enum of the model's keys) need not have a "super" case.
    func superDecoder() throws -> any Decoder {
        let key = StringKey("super")
        return TapeDecoder(
            document: document, index: find(named: key.stringValue) ?? document.absentValue,
            path: ReaderPlace(path, .key(AnyReaderKey(key))).node)
    }

    /// A decoder of the value under `key`, or of `null` if there is none, as JSONDecoder's.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        TapeDecoder(document: document, index: find(key) ?? document.absentValue, path: place(key).node)
    }

    /// `superDecoder(forKey:)` of a key found at `index`, as the reader itself: a caller that
    /// asks for it by type needs no box nor cast.
    func decoder(at index: Int, forKey key: Key) -> TapeDecoder {
        TapeDecoder(document: document, index: index, path: place(key).node)
    }
}
