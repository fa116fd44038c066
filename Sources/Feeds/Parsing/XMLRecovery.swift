/// Repairs what feeds get wrong about XML before `XMLParser` sees it, and takes out what a
/// reader must never act on.
///
/// - The XML declaration is replaced by one that says UTF-8 (the text was decoded already).
/// - The DOCTYPE goes, internal subset and all: no DTD is read, no external entity fetched,
///   and entities it declares (a billion laughs) are never expanded; a reference to one
///   stays as literal text.
/// - A bare `&` becomes `&amp;`; an HTML named reference (`&nbsp;`, `&eacute;`) becomes the
///   numeric one XML knows; a name that is neither XML's nor HTML's stays as literal text
///   (`&doesnotexist;` reads as written, as feedparser keeps it); a numeric reference to a
///   character XML forbids goes. Comments, CDATA sections and processing instructions are
///   copied untouched.
/// - A document whose only fault is a root end tag cut before its `>` (`</rss`) gets the `>`:
///   everything it holds has arrived. Any other truncation stays an error.
enum XMLRecovery {
    /// The repaired document, and the qualified name of its root element (`nil` when it has
    /// no element at all).
    static func prepare(_ text: String) -> (document: String, root: String?) {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 64)
        output += Array(#"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        var index = 0
        // Whitespace and a BOM before the first markup, and the old declaration, go.
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        if bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        if bytes[index...].starts(with: Array("<?xml".utf8)), index + 5 < bytes.count,
            [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5])
        {
            index = end(of: "?>", in: bytes, from: index)
        }
        // The line breaks of what was removed stay, so errors name the document's own lines.
        output += bytes[..<index].filter { $0 == 0x0A }
        var root: String?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if bytes[index...].starts(with: Array("<!--".utf8)) {
                    let stop = end(of: "-->", in: bytes, from: index + 4)
                    output += bytes[index..<stop]
                    index = stop
                } else if bytes[index...].starts(with: Array("<![CDATA[".utf8)) {
                    let stop = end(of: "]]>", in: bytes, from: index + 9)
                    output += bytes[index..<stop]
                    index = stop
                } else if startsWithCaseInsensitive(bytes, index, "<!DOCTYPE") {
                    let stop = endOfDoctype(bytes, from: index + 9)
                    output += bytes[index..<stop].filter { $0 == 0x0A }
                    index = stop
                } else if bytes[index...].starts(with: Array("<?".utf8)) {
                    let stop = end(of: "?>", in: bytes, from: index + 2)
                    output += bytes[index..<stop]
                    index = stop
                } else {
                    if root == nil, index + 1 < bytes.count, isNameStart(bytes[index + 1]) {
                        var stop = index + 1
                        while stop < bytes.count, isNameByte(bytes[stop]) { stop += 1 }
                        root = String(decoding: bytes[(index + 1)..<stop], as: UTF8.self)
                    }
                    output.append(byte)
                    index += 1
                }
            } else if byte == UInt8(ascii: "&") {
                index = reference(bytes, at: index, into: &output)
            } else {
                output.append(byte)
                index += 1
            }
        }
        if let root {
            // `</rss` at the very end: the root's end tag lost its `>`.
            var last = output.count
            while last > 0, [0x20, 0x09, 0x0A, 0x0D].contains(output[last - 1]) { last -= 1 }
            let cut = Array("</\(root)".utf8)
            if last >= cut.count, Array(output[(last - cut.count)..<last]) == cut {
                output.removeSubrange(last...)
                output.append(UInt8(ascii: ">"))
            }
        }
        return (String(decoding: output, as: UTF8.self), root)
    }

    /// Copies the reference at `index` (an `&`) repaired, and returns where the text goes on.
    private static func reference(_ bytes: [UInt8], at index: Int, into output: inout [UInt8]) -> Int {
        var stop = index + 1
        while stop < bytes.count, stop - index <= 40, isNameByte(bytes[stop]) || bytes[stop] == UInt8(ascii: "#") {
            stop += 1
        }
        guard stop < bytes.count, bytes[stop] == UInt8(ascii: ";"), stop > index + 1 else {
            output += Array("&amp;".utf8)
            return index + 1
        }
        let name = String(decoding: bytes[(index + 1)..<stop], as: UTF8.self)
        if ["amp", "lt", "gt", "quot", "apos"].contains(name) {
            output += bytes[index...stop]
        } else if name.hasPrefix("#") {
            if let character = HTMLEntities.character(named: name[...]), let scalar = character.unicodeScalars.first,
                isXMLCharacter(scalar.value)
            {
                output += Array("&#\(scalar.value);".utf8)
            }
        } else if let value = HTMLEntities.named[name] {
            output += Array("&#\(value);".utf8)
        } else {
            output += Array("&amp;".utf8)
            return index + 1
        }
        return stop + 1
    }

    private static func isXMLCharacter(_ value: UInt32) -> Bool {
        value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    }

    /// The index just past `terminator` at or after `start`, or the end.
    private static func end(of terminator: String, in bytes: [UInt8], from start: Int) -> Int {
        let pattern = Array(terminator.utf8)
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], Array(bytes[index..<(index + pattern.count)]) == pattern {
                return index + pattern.count
            }
            index += 1
        }
        return bytes.count
    }

    /// Past the `>` that ends a DOCTYPE, skipping its quoted strings and `[…]` subset.
    private static func endOfDoctype(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        var quote: UInt8?
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: "<"), depth > 0, bytes[index...].starts(with: Array("!--".utf8)) {
                index = end(of: "-->", in: bytes, from: index + 3)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                return index
            }
        }
        return index
    }

    private static func startsWithCaseInsensitive(_ bytes: [UInt8], _ index: Int, _ prefix: String) -> Bool {
        let pattern = Array(prefix.utf8)
        guard index + pattern.count <= bytes.count else { return false }
        return zip(bytes[index...], pattern).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
            || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }
}
