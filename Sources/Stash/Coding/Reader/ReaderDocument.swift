import Foundation

/// One decode's document and settings, shared by its `TapeDecoder`s and containers.
final class ReaderDocument {
    /// The payload's bytes and the tape's nodes, borrowed for the length of the decode
    /// (`TapeDecoder.decode`), so reading a value or comparing a key goes through no closure
    /// and no array retain (with arrays, finding keys cost 8k instructions a record), and
    /// nothing is copied. A decoder kept past its decode traps (`checkOpen`).
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: UnsafeBufferPointer<JSONTape.Node>
    let options: ReaderOptions
    /// Cleared when the decode returns.
    var isOpen = true
    /// As `Decoder.userInfo` gives it: converted once, not per object (1.4k instructions
    /// an object when converted on each read).
    let userInfo: [CodingUserInfoKey: Any]
    /// The context `userInfo` carries, for `ManagedObjectContext.carried(by:decoding:)`.
    let context: ManagedObjectContext?
    /// The nested objects decoded so far, by content (see `NestedObjectMemo`), used only if
    /// `keepsNestedObjects` (`ReaderOptions.decodesBytesAlike`, read once here).
    let nestedObjects = NestedObjectMemo()
    let keepsNestedObjects: Bool

    init(
        bytes: UnsafeBufferPointer<UInt8>, nodes: UnsafeBufferPointer<JSONTape.Node>, options: ReaderOptions,
        userInfo: [CodingUserInfoKey: any Sendable]
    ) {
        self.bytes = bytes
        self.nodes = nodes
        self.options = options
        self.keepsNestedObjects = options.decodesBytesAlike
        self.userInfo = userInfo.mapValues { $0 as Any }
        self.context = userInfo[.managedObjectContext] as? ManagedObjectContext
    }

    /// A decoder or container used after its decode returned would read memory it no
    /// longer has.
    @inline(__always)
    func checkOpen() {
        precondition(isOpen, "a Decoder of context.decode was used after the decode returned")
    }

    @inline(__always)
    func node(_ index: Int) -> JSONTape.Node { nodes[index] }

    /// The tape's last node, a `null` after the document: what a super decoder reads for a key
    /// the object does not have, as JSONDecoder gives it a decoder of `null`.
    var absentValue: Int { nodes.count - 1 }

    /// The index of the node after `index` and everything inside it.
    @inline(__always)
    func next(after index: Int) -> Int {
        let node = nodes[index]
        return node.kind == .object || node.kind == .array ? node.end : index + 1
    }

    /// What the value at `index` is, as JSONDecoder's messages name it.
    func kindText(_ index: Int) -> String {
        switch node(index).kind {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "number"
        case .bool: "bool"
        case .null: "null"
        }
    }

    func typeMismatch(_ type: Any.Type, at index: Int, _ path: ReaderPlace) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(
                codingPath: path.keys,
                debugDescription: "Expected to decode \(type) but found \(kindText(index)) instead."))
    }

    /// JSONDecoder's error for `null` where a value of `type` is expected.
    @inline(__always)
    func checkNotNull(_ type: Any.Type, at index: Int, _ path: @autoclosure () -> ReaderPlace) throws {
        guard node(index).kind == .null else { return }
        throw DecodingError.valueNotFound(
            type,
            .init(
                codingPath: path().keys,
                debugDescription: "Cannot get value of type \(type) -- found null value instead")
        )
    }

    // MARK: Scalars

    /// A `null` is a type mismatch here, not a missing value: JSONDecoder tests a `Bool`
    /// for `.bool` alone, in every container.
    func bool(at index: Int, _ path: @autoclosure () -> ReaderPlace) throws -> Bool {
        let node = node(index)
        guard node.kind == .bool else { throw typeMismatch(Bool.self, at: index, path()) }
        return node.flags == 1
    }

    func string(at index: Int, _ path: @autoclosure () -> ReaderPlace) throws -> String {
        let node = node(index)
        guard node.kind == .string else {
            try checkNotNull(String.self, at: index, path())
            throw typeMismatch(String.self, at: index, path())
        }
        return try text(of: node)
    }

    /// A string node's text: copied as it is, checked as UTF-8 when it has other bytes than
    /// ASCII, or decoded escape by escape.
    func text(of node: JSONTape.Node) throws -> String {
        try Self.text(of: node, in: bytes)
    }

    /// `text(of:)` for a tape read from `bytes`, without a document.
    static func text(of node: JSONTape.Node, in bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[node.start..<node.end])
        if node.flags & JSONTape.Node.escaped == 0 {
            if node.flags & JSONTape.Node.nonASCII == 0 { return String(decoding: slice, as: UTF8.self) }
            // Made as `String(decoding:)` makes it, which puts U+FFFD for bytes that are not
            // UTF-8: the text is valid exactly when it kept every byte. `String(validating:)`,
            // generic, cost about 1k instructions more a string (stash-bench's import).
            var text = String(decoding: slice, as: UTF8.self)
            let kept = text.withUTF8 {
                $0.count == slice.count && memcmp($0.baseAddress!, slice.baseAddress!, $0.count) == 0
            }
            guard kept else { throw JSONReaderError.invalidJSON }
            return text
        }
        return try Self.unescape(slice)
    }

    /// A string with escapes, as JSONDecoder reads it: the RFC 8259 escapes, `\u` with four
    /// hex digits, a high surrogate only with a low one after it; no raw control character.
    private static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var offset = 0
        func hex(_ at: Int) throws -> UInt32 {
            guard at + 4 <= bytes.count else { throw JSONReaderError.invalidJSON }
            var value: UInt32 = 0
            for byte in bytes[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw JSONReaderError.invalidJSON
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x20 { throw JSONReaderError.invalidJSON }
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                offset += 1
                continue
            }
            guard offset + 1 < bytes.count else { throw JSONReaderError.invalidJSON }
            let escape = bytes[offset + 1]
            offset += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex(offset)
                offset += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                        bytes[offset + 1] == UInt8(ascii: "u")
                    else { throw JSONReaderError.invalidJSON }
                    let low = try hex(offset + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw JSONReaderError.invalidJSON }
                    offset += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw JSONReaderError.invalidJSON }
                output.append(contentsOf: UTF8.encode(unicode)!)
            default:
                throw JSONReaderError.invalidJSON
            }
        }
        guard let text = String(validating: output, as: UTF8.self) else { throw JSONReaderError.invalidJSON }
        return text
    }

    /// The number's text, checked against RFC 8259's grammar (the scan took any run of
    /// number characters, as JSONDecoder's does).
    private func numberBytes<Result>(
        at index: Int, _ type: Any.Type, _ path: () -> ReaderPlace,
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) throws -> Result {
        let node = node(index)
        guard node.kind == .number else {
            try checkNotNull(type, at: index, path())
            throw typeMismatch(type, at: index, path())
        }
        let slice = UnsafeBufferPointer(rebasing: bytes[node.start..<node.end])
        guard Self.isValidNumber(slice) else { throw JSONReaderError.invalidJSON }
        return try body(slice)
    }

    static func isValidNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        let count = bytes.count
        func digits() -> Int {
            let start = offset
            while offset < count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") { offset += 1 }
            return offset - start
        }
        if offset < count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < count else { return false }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else if digits() == 0 {
            return false
        }
        if offset < count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { return false }
        }
        if offset < count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { return false }
        }
        return offset == count
    }

    /// An integer as JSONDecoder reads it: plain digits that fit; else through `Double` when
    /// exact and below 2^53 (`1.0`, `1e2`), else through `Decimal`; anything else does not fit.
    func integer<T: FixedWidthInteger & Decodable>(
        _ type: T.Type, at index: Int, _ path: @autoclosure () -> ReaderPlace
    ) throws -> T {
        try numberBytes(at: index, type, path) { bytes in
            if let value = Self.plainInteger(bytes, as: type) { return value }
            let text = String(decoding: bytes, as: UTF8.self)
            if let double = Double(text) {
                guard let value = T(exactly: double) else {
                    throw JSONReaderError.numberIsNotRepresentableInSwift(parsed: text)
                }
                if double.magnitude < 9_007_199_254_740_992 { return value }
            }
            // Above 2^53: JSONDecoder goes through Decimal; let it read this one number.
            return try Self.delegated(type, text)
        }
    }

    /// Digits with an optional minus that fit `T`; nil for anything else.
    @inline(__always)
    static func plainInteger<T: FixedWidthInteger>(_ bytes: UnsafeBufferPointer<UInt8>, as type: T.Type) -> T? {
        var offset = 0
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            offset = 1
        }
        guard offset < bytes.count else { return nil }
        var value: T = 0
        while offset < bytes.count {
            let digit = bytes[offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative
                ? times.subtractingReportingOverflow(T(digit)) : times.addingReportingOverflow(T(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            offset += 1
        }
        return value
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: T.Type, at index: Int, _ path: @autoclosure () -> ReaderPlace
    ) throws -> T {
        try numberBytes(at: index, type, path) { bytes in
            if T.self == Double.self, let value = Self.shortDecimal(bytes) { return T(value) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let value = T(text), value.isFinite else {
                throw JSONReaderError.numberIsNotRepresentableInSwift(parsed: text)
            }
            if value == 0 {
                // Rounded to zero: only a true zero reads as zero.
                for byte in bytes {
                    if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
                    if byte >= UInt8(ascii: "1"), byte <= UInt8(ascii: "9") {
                        throw JSONReaderError.numberIsNotRepresentableInSwift(parsed: text)
                    }
                }
            }
            return value
        }
    }

    /// A number of at most 15 digits and no exponent (`19.99`, `-0.5`, `42`), read as
    /// `Double(text)` reads it, without the text and `strtod` (about 1.2k instructions a
    /// number): its digits as an integer, exact as a `Double` below 10^15, divided by a power
    /// of ten up to 10^15, exact too, in one correctly rounded division; so the nearest
    /// `Double` to the decimal, which is what `strtod` answers. `nil` for any other form.
    /// The text has been checked against the grammar.
    @inline(__always)
    static func shortDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var offset = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { offset = 1 }
        var digits: Int64 = 0
        var count = 0
        var fractionDigits = -1
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            if byte == UInt8(ascii: ".") {
                fractionDigits = 0
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10, count < 15 else { return nil }
            digits = digits &* 10 &+ Int64(digit)
            count += 1
            if fractionDigits >= 0 { fractionDigits += 1 }
        }
        let value = Double(digits) / powersOfTen[max(fractionDigits, 0)]
        return negative ? -value : value
    }

    /// 10^0 through 10^15, each exactly a `Double`.
    private static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    /// One number read by JSONDecoder itself, for the rare forms this reader does not
    /// parse (an integer above 2^53 written with a fraction or exponent, a `Decimal`); its
    /// internal error comes out as it would from the whole decode.
    static func delegated<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let outcome: Result<T, any Error>
        do {
            outcome = try JSONDecoder().decode([Caught<T>].self, from: Data("[\(text)]".utf8))[0].outcome
        } catch {
            throw JSONReaderError.invalidJSON
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error):
            if let number = StashError.unrepresentableNumber(in: error) {
                throw JSONReaderError.numberIsNotRepresentableInSwift(parsed: number)
            }
            if error is DecodingError { throw error }
            throw JSONReaderError.invalidJSON
        }
    }

    /// A value decoded with its error kept: JSONDecoder's internal errors lose their kind
    /// when they leave the whole decode.
    private struct Caught<T: Decodable>: Decodable {
        let outcome: Result<T, any Error>
        init(from decoder: any Decoder) throws {
            outcome = Result { try decoder.singleValueContainer().decode(T.self) }
        }
    }

    /// The raw text of the value at `index` (a scalar), for `delegated`.
    func rawText(at index: Int) -> String {
        let node = node(index)
        let start = node.kind == .string ? node.start - 1 : node.start
        let end = node.kind == .string ? node.end + 1 : node.end
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
