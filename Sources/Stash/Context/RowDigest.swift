/// A 64-bit digest of stored values, the same in every process and run (Swift's `Hasher` is
/// not): what conditional GET keeps to tell later whether rows are still the objects, and
/// hold the values, that an answer left (`PersistentContainer.pageDigests`).
///
/// FNV-1a's step, `(digest ^ input) * prime`, taken a byte at a time for tags and eight bytes
/// at a time for a value's bytes. Each step is a bijection of the digest for a given input,
/// so two runs of bytes of the same length (the length goes in first) that differ in one
/// word always end in different digests. Values are read from a store's row in place
/// (`StoreRow.digest(_:into:)`), with no `String` made: checking 100,000 rows of nine columns
/// took 0.24 s through `StoredValue`s and byte-at-a-time steps (stash-bench, `--rest-only`).
package struct RowDigest {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    private static let prime: UInt64 = 0x100_0000_01b3

    package init() {}

    package mutating func add(_ stored: StoredValue) {
        switch stored {
        case .null: addNull()
        case .integer(let integer): add(integer: integer)
        case .real(let real): add(real: real)
        case .text(let text):
            var text = text
            text.withUTF8 { add(text: UnsafeRawBufferPointer($0)) }
        case .blob(let bytes):
            bytes.withUnsafeBytes { add(tag: 4, bytes: $0) }
        }
    }

    package mutating func addNull() { add(byte: 0) }

    package mutating func add(integer: Int64) { add(tag: 1, integer) }

    package mutating func add(real: Double) { add(tag: 2, real.bitPattern) }

    /// A text value's UTF-8 bytes.
    package mutating func add(text bytes: UnsafeRawBufferPointer) { add(tag: 3, bytes: bytes) }

    private mutating func add<Number: FixedWidthInteger>(tag: UInt8, _ number: Number) {
        add(byte: tag)
        add(word: UInt64(truncatingIfNeeded: number))
    }

    /// A tag, the length, then the bytes eight at a time, the last word zero-padded.
    private mutating func add(tag: UInt8, bytes: UnsafeRawBufferPointer) {
        add(byte: tag)
        add(word: UInt64(bytes.count))
        var offset = 0
        while offset + 8 <= bytes.count {
            add(word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        guard offset < bytes.count else { return }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        add(word: last)
    }

    private mutating func add(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    private mutating func add(word: UInt64) {
        value = (value ^ word) &* Self.prime
    }
}
