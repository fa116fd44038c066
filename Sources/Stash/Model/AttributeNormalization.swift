import Foundation

/// How a text attribute's values are made one form before they are kept or compared:
/// `@Attribute(.unique, normalized: [.trimmed, .caseFolded]) var name: String` makes
/// `Swift`, `swift` and ` SWIFT` one tag.
///
/// Applied where values come in: decoding (so the unique lookup finds the one row), the
/// property's setter (so `Tag(context:)` with `"SWIFT"` upserts that row) and references to
/// the value from other objects' JSON. The attribute then holds the normalized text: keep the
/// text as given in another attribute if it must be shown. A query compares the stored text,
/// so normalize a literal it compares with the same way: `normalization.normalize(text)`.
public struct AttributeNormalization: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Whitespace and newlines at both ends removed.
    public static let trimmed = AttributeNormalization(rawValue: 1 << 0)
    /// Unicode case folding, the same in every locale: `SWIFT` is `swift`, `Straße` is
    /// `strasse`.
    public static let caseFolded = AttributeNormalization(rawValue: 1 << 1)
    /// Unicode canonical composition (NFC): `e` + U+0301 is `é`, so the two spellings of
    /// "café" are one value.
    public static let precomposed = AttributeNormalization(rawValue: 1 << 2)
    /// For URLs kept as text: the scheme and the host in lower case, the rest as given (RFC
    /// 3986 §6.2.2.1: those two are case-insensitive, a path is not), so
    /// `HTTPS://Example.COM/A` and `https://example.com/A` are one bookmark. Text with no
    /// `scheme://` is left as it is.
    public static let urlSchemeAndHost = AttributeNormalization(rawValue: 1 << 3)

    /// `text` in this form: trimmed, then folded, then composed.
    public func normalize(_ text: String) -> String {
        var text = text
        if contains(.trimmed) { text = text.trimmingCharacters(in: .whitespacesAndNewlines) }
        if contains(.caseFolded) { text = text.folding(options: .caseInsensitive, locale: nil) }
        if contains(.precomposed) { text = text.precomposedStringWithCanonicalMapping }
        if contains(.urlSchemeAndHost) { text = Self.lowercasingSchemeAndHost(text) }
        return text
    }

    /// `text` with the scheme and the host (not the user information or port's neighbours)
    /// lowered.
    static func lowercasingSchemeAndHost(_ text: String) -> String {
        guard let separator = text.range(of: "://") else { return text }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return text }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        return scheme.lowercased() + "://" + authority[..<hostStart] + authority[hostStart...].lowercased()
            + rest[authorityEnd...]
    }
}
