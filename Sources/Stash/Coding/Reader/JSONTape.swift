import Foundation

/// A JSON document read once into a flat list of its values (a *tape*), for `TapeDecoder`.
///
/// The scan checks what Foundation's `JSONDecoder` checks before it decodes anything (the
/// structure, literals, where strings end) and as loosely: a trailing comma is accepted, a
/// number is any run of `0-9 + - . e E` until it is decoded, an escape's text is checked
/// when its string is decoded. So a payload fails or passes the scan exactly when
/// `JSONDecoder` would, and what it leaves to decoding fails there with the same path.
struct JSONTape {
    /// Every value in document order; an object's members are its key and value, in turn;
    /// then one `null` that stands for an absent value (`ReaderDocument.absentValue`).
    private(set) var nodes: [Node] = []

    enum Kind: UInt8 {
        case object, array, string, number, bool, null
    }

    /// One value: for a scalar, `start..<end` are its bytes (a string's without the quotes);
    /// for an object or array, `start` is how many values it holds and `end` the index of
    /// the node after its last one.
    struct Node {
        var kind: Kind
        /// For a string: `Self.escaped` (an escape or a control character: decoded byte by
        /// byte), `Self.nonASCII` (checked as UTF-8). For a bool: 1 for true. For an object:
        /// `Self.plainKeys` when every key is ASCII without escapes.
        var flags: UInt8
        /// Offsets as 32 bits (12 bytes a node, not 24: a 48 MB payload makes 5 million of
        /// them); `ReaderEligibility` leaves bigger documents to JSONDecoder.
        private var storedStart: UInt32
        private var storedEnd: UInt32

        init(kind: Kind, flags: UInt8, start: Int, end: Int) {
            self.kind = kind
            self.flags = flags
            storedStart = UInt32(truncatingIfNeeded: start)
            storedEnd = UInt32(truncatingIfNeeded: end)
        }

        var start: Int { Int(storedStart) }
        var end: Int { Int(storedEnd) }

        static let escaped: UInt8 = 1
        static let nonASCII: UInt8 = 2
        static let plainKeys: UInt8 = 4
        static let underscore: UInt8 = 8
        /// For an object: two keys may be one (they are, or a key has an underscore, which
        /// `.convertFromSnakeCase` may make another's), so a key is searched from the first.
        static let duplicates: UInt8 = 16
    }

    /// JSONDecoder's limit: deeper nesting is not valid JSON to it.
    static let maximumDepth = 512

    /// The largest document the tape's 32-bit offsets can hold.
    static let maximumSize = Int(UInt32.max) - 1

    /// Reads `bytes`; throws `JSONReaderError.invalidJSON` where `JSONDecoder` finds the
    /// document malformed. The nodes keep offsets into `bytes`, which the caller keeps.
    init(bytes: UnsafeBufferPointer<UInt8>) throws {
        precondition(bytes.count <= Self.maximumSize, "a document over 4 GB goes to JSONDecoder")
        nodes.reserveCapacity(bytes.count / 16)
        var scanner = Scanner(bytes: bytes)
        scanner.skipSpaces()
        try scanner.value(into: &nodes, depth: 0)
        scanner.skipSpaces()
        guard scanner.offset == bytes.count else { throw JSONReaderError.invalidJSON }
        // Outside every value (the root's `end` is this node's index): what a super decoder
        // reads for a key the object does not have (`ReaderDocument.absentValue`).
        nodes.append(Node(kind: .null, flags: 0, start: 0, end: 0))
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        @inline(__always)
        mutating func skipSpaces() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x0A, 0x0D, 0x09: offset += 1
                default: return
                }
            }
        }

        @inline(__always)
        func peek() throws -> UInt8 {
            guard offset < bytes.count else { throw JSONReaderError.invalidJSON }
            return bytes[offset]
        }

        mutating func value(into nodes: inout [Node], depth: Int) throws {
            switch try peek() {
            case UInt8(ascii: "{"): try object(into: &nodes, depth: depth + 1)
            case UInt8(ascii: "["): try array(into: &nodes, depth: depth + 1)
            case UInt8(ascii: "\""): nodes.append(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                nodes.append(Node(kind: .bool, flags: 1, start: offset - 4, end: offset))
            case UInt8(ascii: "f"):
                try literal("false")
                nodes.append(Node(kind: .bool, flags: 0, start: offset - 5, end: offset))
            case UInt8(ascii: "n"):
                try literal("null")
                nodes.append(Node(kind: .null, flags: 0, start: offset - 4, end: offset))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = offset
                offset += 1
                scan: while offset < bytes.count {
                    switch bytes[offset] {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"),
                        UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                        offset += 1
                    default: break scan
                    }
                }
                nodes.append(Node(kind: .number, flags: 0, start: start, end: offset))
            default:
                throw JSONReaderError.invalidJSON
            }
        }

        mutating func literal(_ text: StaticString) throws {
            let count = text.utf8CodeUnitCount
            guard offset + count <= bytes.count else { throw JSONReaderError.invalidJSON }
            let expected = text.utf8Start
            for index in 0..<count where bytes[offset + index] != expected[index] {
                throw JSONReaderError.invalidJSON
            }
            offset += count
        }

        /// A string at `offset` (its opening quote); leaves `offset` after the closing one.
        /// Eight bytes at a time while none is a quote, a backslash or a control character
        /// (the scan was 9.7k instructions a record byte by byte, stash-bench under callgrind).
        mutating func string() throws -> Node {
            offset += 1
            let start = offset
            var flags: UInt8 = 0
            guard let base = bytes.baseAddress else { throw JSONReaderError.invalidJSON }
            let count = bytes.count
            while true {
                while offset + 8 <= count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
                    let special =
                        Self.zeroByte(word ^ 0x2222_2222_2222_2222) | Self.zeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                        | ((word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080)
                    if special != 0 {
                        // Straight to the first such byte: the lowest marked bit is exact (only
                        // bytes above a marked one may be marked wrongly). The bytes before it
                        // are plain, but may not be ASCII.
                        let plain = special.trailingZeroBitCount / 8
                        if word & ((1 << (8 * UInt64(plain))) &- 1) & 0x8080_8080_8080_8080 != 0 {
                            flags |= Node.nonASCII
                        }
                        offset += plain
                        break
                    }
                    if word & 0x8080_8080_8080_8080 != 0 { flags |= Node.nonASCII }
                    offset += 8
                }
                guard offset < count else { throw JSONReaderError.invalidJSON }
                let byte = base[offset]
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") {
                    flags |= Node.escaped
                    offset += 1
                    guard offset < count else { throw JSONReaderError.invalidJSON }
                    if base[offset] == UInt8(ascii: "u") {
                        // Four characters must follow before the string ends; what they
                        // are is checked when the string is decoded.
                        guard offset + 4 < count else { throw JSONReaderError.invalidJSON }
                        for index in 1...4 where base[offset + index] == UInt8(ascii: "\"") {
                            throw JSONReaderError.invalidJSON
                        }
                        offset += 5
                    } else {
                        offset += 1
                    }
                    continue
                }
                if byte < 0x20 {
                    flags |= Node.escaped
                } else if byte >= 0x80 {
                    flags |= Node.nonASCII
                }
                offset += 1
            }
            let node = Node(kind: .string, flags: flags, start: start, end: offset)
            offset += 1
            return node
        }

        /// The high bit of each byte of `word` that is zero (and perhaps of bytes above one
        /// that is: enough to say whether any is).
        @inline(__always)
        static func zeroByte(_ word: UInt64) -> UInt64 {
            (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
        }

        /// A key: a string, marked when it holds an underscore (`.convertFromSnakeCase`
        /// changes only those).
        mutating func key() throws -> Node {
            var node = try string()
            var offset = node.start
            while offset < node.end {
                if bytes[offset] == UInt8(ascii: "_") {
                    node.flags |= Node.underscore
                    break
                }
                offset += 1
            }
            return node
        }

        mutating func object(into nodes: inout [Node], depth: Int) throws {
            guard depth <= JSONTape.maximumDepth else { throw JSONReaderError.invalidJSON }
            offset += 1
            let index = nodes.count
            nodes.append(Node(kind: .object, flags: Node.plainKeys, start: 0, end: 0))
            var count = 0
            var flags = Node.plainKeys
            var seen: (UInt64, UInt64) = (0, 0)
            skipSpaces()
            if try peek() != UInt8(ascii: "}") {
                while true {
                    guard try peek() == UInt8(ascii: "\"") else { throw JSONReaderError.invalidJSON }
                    let key = try key()
                    if key.flags & (Node.escaped | Node.nonASCII) != 0 { flags = 0 }
                    if key.flags & Node.underscore != 0 {
                        flags |= Node.duplicates
                    } else if flags & Node.duplicates == 0 {
                        // A two-word filter of the keys seen; on a hit, the keys are compared.
                        let length = key.end - key.start
                        var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9
                        if length > 0 {
                            hash = hash &+ UInt64(bytes[key.start]) &* 31 &+ UInt64(bytes[key.end - 1]) &* 131
                            hash = hash &+ UInt64(bytes[key.start + length / 2]) &* 1031
                        }
                        let bit = UInt64(1) << (hash & 63)
                        let high = (hash >> 6) & 1 == 1
                        if (high ? seen.1 : seen.0) & bit != 0, isRepeated(key, in: nodes, object: index) {
                            flags |= Node.duplicates
                        }
                        if high { seen.1 |= bit } else { seen.0 |= bit }
                    }
                    nodes.append(key)
                    skipSpaces()
                    guard try peek() == UInt8(ascii: ":") else { throw JSONReaderError.invalidJSON }
                    offset += 1
                    skipSpaces()
                    try value(into: &nodes, depth: depth)
                    count += 1
                    skipSpaces()
                    let next = try peek()
                    offset += 1
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else { throw JSONReaderError.invalidJSON }
                    skipSpaces()
                    // JSONDecoder accepts a comma before the closing brace.
                    if try peek() == UInt8(ascii: "}") {
                        offset += 1
                        break
                    }
                }
            } else {
                offset += 1
            }
            nodes[index] = Node(kind: .object, flags: flags, start: count, end: nodes.count)
        }

        /// Whether `key` equals a key before it in the object at `object`.
        func isRepeated(_ key: Node, in nodes: [Node], object: Int) -> Bool {
            var member = object + 1
            let length = key.end - key.start
            while member < nodes.count {
                let other = nodes[member]
                if other.end - other.start == length,
                    memcmp(bytes.baseAddress! + other.start, bytes.baseAddress! + key.start, length) == 0
                {
                    return true
                }
                let value = nodes[member + 1]
                member = value.kind == .object || value.kind == .array ? value.end : member + 2
            }
            return false
        }

        mutating func array(into nodes: inout [Node], depth: Int) throws {
            guard depth <= JSONTape.maximumDepth else { throw JSONReaderError.invalidJSON }
            offset += 1
            let index = nodes.count
            nodes.append(Node(kind: .array, flags: 0, start: 0, end: 0))
            var count = 0
            skipSpaces()
            if try peek() != UInt8(ascii: "]") {
                while true {
                    try value(into: &nodes, depth: depth)
                    count += 1
                    skipSpaces()
                    let next = try peek()
                    offset += 1
                    if next == UInt8(ascii: "]") { break }
                    guard next == UInt8(ascii: ",") else { throw JSONReaderError.invalidJSON }
                    skipSpaces()
                    // JSONDecoder accepts a comma before the closing bracket.
                    if try peek() == UInt8(ascii: "]") {
                        offset += 1
                        break
                    }
                }
            } else {
                offset += 1
            }
            nodes[index] = Node(kind: .array, flags: 0, start: count, end: nodes.count)
        }
    }
}
