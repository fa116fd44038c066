import Foundation

/// The value at a key path of a JSON document (`"next"`, `"meta.cursor"`), read on a tape of
/// it (`JSONTape`, the reader's scan): what StashREST's pagination asks of every page's body,
/// which it used to parse whole into Foundation objects with `JSONSerialization` (0.7 ms of
/// a 100-record page). The body is still scanned twice, once for the decode and once here;
/// the scan is the cheap part.
///
/// Answers as `JSONSerialization` did for what a link or a cursor is: a string as its text,
/// an integer as an `Int` (a wider one with every digit), another number as a `Double`
/// (`3.0` stays `3.0`), a bool as a `Bool`; `nil` for `null`, an object or array, a missing
/// key, or a document that is not JSON.
package enum JSONKeyPathValue {
    package static func value(at keyPath: String, in data: Data) -> Any? {
        let keys = keyPath.split(separator: ".").map(String.init)
        return data.withUnsafeBytes { raw -> Any? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count <= JSONTape.maximumSize, let tape = try? JSONTape(bytes: bytes) else { return nil }
            return tape.nodes.withUnsafeBufferPointer { nodes in
                guard let index = Self.index(of: keys, in: nodes, bytes) else { return nil }
                return Self.value(of: nodes[index], in: bytes)
            }
        }
    }

    /// The node at `keys`, going through objects from the root.
    private static func index(
        of keys: [String], in nodes: UnsafeBufferPointer<JSONTape.Node>, _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Int? {
        var index = 0
        for key in keys {
            let object = nodes[index]
            guard object.kind == .object else { return nil }
            var member = index + 1
            var found: Int?
            // Each member is its key's node, then its value's; the last one with the key wins,
            // as JSONSerialization keeps it.
            while member < object.end {
                let value = member + 1
                if let name = try? ReaderDocument.text(of: nodes[member], in: bytes), name == key { found = value }
                let valueNode = nodes[value]
                member = valueNode.kind == .object || valueNode.kind == .array ? valueNode.end : value + 1
            }
            guard let found else { return nil }
            index = found
        }
        return index
    }

    private static func value(of node: JSONTape.Node, in bytes: UnsafeBufferPointer<UInt8>) -> Any? {
        switch node.kind {
        case .string:
            return try? ReaderDocument.text(of: node, in: bytes)
        case .number:
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[node.start..<node.end]), as: UTF8.self)
            if let integer = Int(text) { return integer }
            // An integer wider than Int keeps every digit (a cursor is sent back as written),
            // as JSONSerialization keeps it.
            if text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            {
                return UInt64(text).map { $0 as Any } ?? Decimal(string: text)
            }
            guard let number = Double(text), number.isFinite else { return nil }
            return number
        case .bool:
            return node.flags == 1
        case .null, .object, .array:
            return nil
        }
    }
}
