import Foundation

/// The attributes each nested object of one document decoded to, found again by the
/// object's content on the tape: a nested author sent with each of a thousand essays is
/// decoded once, and each later copy that is the same byte for byte (keys, values, their
/// order) takes the values already decoded (`ObjectDecoder.replay`). Whitespace aside,
/// the same bytes decode to the same values under one document's settings (unless a custom
/// date or data strategy runs code of the caller's: `ReaderOptions.decodesBytesAlike`), so
/// the values are a function of the content; what is applied, and to which object, is worked out
/// again each time, as a full decode would.
///
/// It lives as long as its `ReaderDocument`, and holds at most `capacity` objects: a
/// payload of nested objects that never repeat keeps no more than that.
final class NestedObjectMemo {
    private struct Entry {
        let type: ObjectIdentifier
        /// The object's node in the document, where the content is compared.
        let node: Int
        let attributes: DecodedAttributes
    }

    static let capacity = 4_096
    // Unchecked, both: a document is read by one decode, on one thread; the runtime's check
    // cost about 90 instructions a nested object (see docs/ARCHITECTURE.md).
    @exclusivity(unchecked) private var entries: [UInt64: Entry] = [:]
    /// The types of the objects kept: an object of another type is not hashed (a thread of
    /// comments nested in replies, never kept, would be hashed at every depth). A few at
    /// most (one per model), so scanned: a `Set` cost 300 instructions a nested object.
    @exclusivity(unchecked) private var keptTypes: [ObjectIdentifier] = []

    /// The attributes an object of `type` with the content of the object at `index` decoded to.
    func attributes(of type: ObjectIdentifier, at index: Int, in document: ReaderDocument) -> DecodedAttributes? {
        guard keptTypes.contains(type), let entry = entries[Self.signature(of: index, type, in: document)],
            entry.type == type, Self.sameContent(entry.node, index, in: document)
        else { return nil }
        return entry.attributes
    }

    /// Keeps what the object of `type` at `index` decoded to; a signature already taken
    /// (the same content, or another that hashes alike) is taken over.
    func keep(_ attributes: DecodedAttributes, of type: ObjectIdentifier, at index: Int, in document: ReaderDocument) {
        if entries.count >= Self.capacity {
            entries.removeAll(keepingCapacity: true)
            keptTypes.removeAll()
        }
        entries[Self.signature(of: index, type, in: document)] = Entry(type: type, node: index, attributes: attributes)
        if !keptTypes.contains(type) { keptTypes.append(type) }
    }

    /// A hash (FNV-1a) of the nodes inside the object at `index`: their kinds and flags,
    /// the bytes of keys, strings and numbers, the sizes of objects and arrays.
    private static func signature(of index: Int, _ type: ObjectIdentifier, in document: ReaderDocument) -> UInt64 {
        let prime: UInt64 = 0x100_0000_01B3
        let nodes = document.nodes
        let bytes = document.bytes
        let end = nodes[index].end
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(UInt(bitPattern: type))
        hash = (hash ^ UInt64(end - index)) &* prime
        for position in (index + 1)..<end {
            let node = nodes[position]
            hash = (hash ^ (UInt64(node.kind.rawValue) << 8 | UInt64(node.flags))) &* prime
            switch node.kind {
            case .string, .number:
                for offset in node.start..<node.end { hash = (hash ^ UInt64(bytes[offset])) &* prime }
            case .object, .array:
                hash = (hash ^ UInt64(node.start)) &* prime
            case .bool, .null:
                break
            }
        }
        return hash
    }

    /// Whether the objects at `first` and `second` hold the same nodes with the same bytes.
    private static func sameContent(_ first: Int, _ second: Int, in document: ReaderDocument) -> Bool {
        let nodes = document.nodes
        let count = nodes[first].end - first
        guard nodes[second].end - second == count, nodes[first].start == nodes[second].start else { return false }
        for step in 1..<count {
            let one = nodes[first + step]
            let other = nodes[second + step]
            guard one.kind == other.kind, one.flags == other.flags else { return false }
            switch one.kind {
            case .string, .number:
                let length = one.end - one.start
                guard other.end - other.start == length else { return false }
                if length > 0,
                    memcmp(document.bytes.baseAddress! + one.start, document.bytes.baseAddress! + other.start, length)
                        != 0
                {
                    return false
                }
            case .object, .array:
                guard one.start == other.start, one.end - (first + step) == other.end - (second + step) else {
                    return false
                }
            case .bool, .null:
                break
            }
        }
        return true
    }
}
