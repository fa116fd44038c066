import Foundation

/// Turns a feed's bytes into text, finding the encoding the way XML and HTTP say, in this
/// order: a byte order mark; UTF-16 or UTF-32 without one, told from how `<` is encoded; the
/// HTTP `charset` (it beats the XML declaration: a server that transcodes a feed rewrites the
/// header, not the document); the XML declaration's `encoding`; else UTF-8, or windows-1252
/// when the bytes are not valid UTF-8.
///
/// ISO-8859-1, Latin-1 and US-ASCII are read as windows-1252, as browsers do: feeds that say
/// Latin-1 mean it, and its 0x80–0x9F are otherwise unprintable controls. Control characters
/// other than tab, CR and LF are dropped, since XML forbids them and feeds still send them.
enum CharsetDecoder {
    /// The text of `data`, and the name of the encoding it was read in.
    static func decode(_ data: Data, contentType: String?) -> (text: String, encoding: String) {
        let bytes = [UInt8](data)
        var body = bytes[...]
        var encoding: Encoding?
        if let (bom, length) = byteOrderMark(body) {
            encoding = bom
            body = body.dropFirst(length)
        } else if let sniffed = sniffWideEncoding(body) {
            encoding = sniffed
        } else if let label = contentType.flatMap(charsetParameter), let named = Encoding(label: label), !named.isWide {
            encoding = named
        } else if let label = declaredEncoding(body), let named = Encoding(label: label), !named.isWide {
            // A UTF-16 or UTF-32 label on bytes that are neither (no BOM, `<` one byte wide) is
            // wrong: the bytes win.
            encoding = named
        }
        let text: String
        let name: String
        switch encoding {
        case nil:
            if let valid = String(validating: body, as: UTF8.self) {
                (text, name) = (valid, "utf-8")
            } else {
                (text, name) = (windows1252(body), "windows-1252")
            }
        case .some(let encoding):
            (text, name) = (encoding.decode(body), encoding.name)
        }
        return (droppingControlCharacters(text), name)
    }

    /// The encodings feeds are sent in that Foundation's `String.Encoding` names, plus
    /// windows-1252 decoded here (Foundation on Linux rejects its five unassigned bytes).
    enum Encoding: Equatable {
        case utf8, utf16LE, utf16BE, utf32LE, utf32BE, windows1252
        case foundation(String.Encoding, String)

        init?(label: String) {
            let label = label.trimmingCharacters(in: CharacterSet(charactersIn: " \"'")).lowercased()
            switch label {
            case "utf-8", "utf8", "unicode-1-1-utf-8": self = .utf8
            case "utf-16", "utf-16le", "utf16", "ucs-2", "unicode": self = .utf16LE
            case "utf-16be": self = .utf16BE
            case "utf-32", "utf-32le", "ucs-4": self = .utf32LE
            case "utf-32be": self = .utf32BE
            case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp819", "us-ascii", "ascii",
                "windows-1252", "cp1252", "x-cp1252":
                self = .windows1252
            default:
                guard let encoding = Self.foundationNames[label] else { return nil }
                self = .foundation(encoding, label)
            }
        }

        /// IANA names mapped by hand: `CFStringConvertIANACharSetNameToEncoding` is not there
        /// on Linux.
        static let foundationNames: [String: String.Encoding] = [
            "iso-8859-2": .isoLatin2, "latin2": .isoLatin2, "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250,
            "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251, "windows-1253": .windowsCP1253,
            "cp1253": .windowsCP1253, "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254,
            "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "euc-jp": .japaneseEUC,
            "iso-2022-jp": .iso2022JP, "macintosh": .macOSRoman, "mac": .macOSRoman, "x-mac-roman": .macOSRoman,
        ]

        var isWide: Bool { [.utf16LE, .utf16BE, .utf32LE, .utf32BE].contains(self) }

        var name: String {
            switch self {
            case .utf8: "utf-8"
            case .utf16LE: "utf-16le"
            case .utf16BE: "utf-16be"
            case .utf32LE: "utf-32le"
            case .utf32BE: "utf-32be"
            case .windows1252: "windows-1252"
            case .foundation(_, let name): name
            }
        }

        func decode(_ bytes: ArraySlice<UInt8>) -> String {
            switch self {
            case .utf8: return String(decoding: bytes, as: UTF8.self)
            case .utf16LE, .utf16BE:
                var units: [UInt16] = []
                units.reserveCapacity(bytes.count / 2)
                var index = bytes.startIndex
                while index + 1 < bytes.endIndex {
                    let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
                    units.append(self == .utf16LE ? first | second << 8 : first << 8 | second)
                    index += 2
                }
                return String(decoding: units, as: UTF16.self)
            case .utf32LE, .utf32BE:
                var scalars = String.UnicodeScalarView()
                var index = bytes.startIndex
                while index + 3 < bytes.endIndex {
                    let b = (0..<4).map { UInt32(bytes[index + $0]) }
                    let value =
                        self == .utf32LE
                        ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
                    scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                    index += 4
                }
                return String(scalars)
            case .windows1252: return CharsetDecoder.windows1252(bytes)
            case .foundation(let encoding, _):
                return String(data: Data(bytes), encoding: encoding) ?? CharsetDecoder.windows1252(bytes)
            }
        }
    }

    static func byteOrderMark(_ bytes: ArraySlice<UInt8>) -> (Encoding, Int)? {
        let b = Array(bytes.prefix(4))
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if b.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LE, 4) }
        if b.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BE, 4) }
        if b.starts(with: [0xFF, 0xFE]) { return (.utf16LE, 2) }
        if b.starts(with: [0xFE, 0xFF]) { return (.utf16BE, 2) }
        return nil
    }

    /// UTF-16 or UTF-32 without a byte order mark, told from the zero bytes around the first
    /// ASCII character (`<`, or whitespace before it), as XML 1.0 appendix F describes.
    static func sniffWideEncoding(_ bytes: ArraySlice<UInt8>) -> Encoding? {
        let b = Array(bytes.prefix(4))
        guard b.count == 4 else { return nil }
        if b[0] == 0, b[1] == 0, b[2] == 0, b[3] != 0 { return .utf32BE }
        if b[0] != 0, b[1] == 0, b[2] == 0, b[3] == 0 { return .utf32LE }
        if b[0] == 0, b[1] != 0, b[2] == 0, b[3] != 0 { return .utf16BE }
        if b[0] != 0, b[1] == 0, b[2] != 0, b[3] == 0 { return .utf16LE }
        return nil
    }

    /// The `charset` parameter of a Content-Type header, lowercased.
    static func charsetParameter(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"'")).lowercased()
        }
        return nil
    }

    /// The `encoding` of an `<?xml …?>` declaration at the start (after whitespace).
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).drop { $0.isWhitespace }
        guard head.hasPrefix("<?xml"), let end = head.range(of: "?>") else { return nil }
        let declaration = head[..<end.lowerBound]
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote }).lowercased()
    }

    /// windows-1252's characters for 0x80–0x9F (0 where it assigns none).
    static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E,
        0x0178,
    ]

    static func windows1252(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            if (0x80...0x9F).contains(byte) {
                let value = windows1252High[Int(byte) - 0x80]
                if value != 0, let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            } else {
                scalars.append(Unicode.Scalar(byte))
            }
        }
        return String(scalars)
    }

    /// `text` without the characters XML forbids: C0 controls but tab, LF and CR, and the
    /// noncharacters U+FFFE and U+FFFF.
    static func droppingControlCharacters(_ text: String) -> String {
        let forbidden = text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE
                || scalar.value == 0xFFFF
        }
        guard forbidden else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { scalar in
                    !((scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r")
                        || scalar.value == 0xFFFE || scalar.value == 0xFFFF)
                }))
    }
}
