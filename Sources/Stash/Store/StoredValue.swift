import Foundation

/// A value as a store keeps it, whatever the backend: one of five kinds.
///
/// Codecs turn attribute values into stored values and back; a store maps them to its own
/// types (SQLite's storage classes). Nothing above `Store/` sees a backend's types, so the
/// same change sets and queries serve any store.
///
/// Equality is the store's: text is equal when its UTF-8 bytes are, as SQLite compares it
/// (with its default BINARY collation), not by Swift's canonical equivalence. "café" with a
/// precomposed é and with e + U+0301 are two values here as they are two rows in a table, so
/// a context's unique index and the store's agree; Stash never normalizes what it stores.
package enum StoredValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The kind's name, for error messages.
    package var kindName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

extension StoredValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}

extension StoredValue: Hashable {
    package static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let left), .integer(let right)): left == right
        case (.real(let left), .real(let right)): left == right
        case (.text(let left), .text(let right)): sameBytes(left, right)
        case (.blob(let left), .blob(let right)): left == right
        default: false
        }
    }

    /// What `Dictionary` and `Set` hash a key by. An integer, the kind most unique keys are,
    /// is hashed as `Int64` hashes itself, in one call: through `hash(into:)` a look-up of
    /// a unique index made a hasher, fed it the case and the number and finalized it, 220
    /// instructions more (stash-bench's graph import under callgrind). Equal values are of
    /// one case, so they hash alike either way.
    package func _rawHashValue(seed: Int) -> Int {
        if case .integer(let value) = self { return value._rawHashValue(seed: seed) }
        var hasher = Hasher()
        hasher.combine(seed)
        hash(into: &hasher)
        return hasher.finalize()
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3 as UInt8)
            let hashed: Void? = value.utf8.withContiguousStorageIfAvailable {
                hasher.combine(bytes: UnsafeRawBufferPointer($0))
            }
            if hashed == nil { Array(value.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        case .blob(let bytes):
            hasher.combine(4 as UInt8)
            hasher.combine(bytes)
        }
    }
}

/// Whether two strings have the same UTF-8 bytes.
private func sameBytes(_ left: String, _ right: String) -> Bool {
    let compared = left.utf8.withContiguousStorageIfAvailable { leftBytes in
        right.utf8.withContiguousStorageIfAvailable { rightBytes in
            leftBytes.count == rightBytes.count
                && (leftBytes.isEmpty || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0)
        }
    }
    return (compared ?? nil) ?? left.utf8.elementsEqual(right.utf8)
}
