import Foundation
import Stash

/// What every reader does to the values it finds: titles to plain text, HTML sanitised with
/// links made absolute, plain text escaped into HTML, dates read leniently.
enum FeedMarkup {
    /// A title that may hold markup or references (RSS titles often do), as plain text.
    static func title(_ raw: String?) -> String {
        guard let raw else { return "" }
        return HTMLText.plainText(raw)
    }

    /// Sanitised HTML, or `nil` when nothing visible is left.
    static func html(_ raw: String?, base: URL?) -> String? {
        guard let raw, !raw.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        let clean = HTMLSanitizer.sanitize(raw, baseURL: base).trimmingCharacters(in: .whitespacesAndNewlines)
        return clean.isEmpty ? nil : clean
    }

    /// Plain text as HTML: escaped, each line break a `<br />`.
    static func escapedHTML(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return HTMLSanitizer.escapeText(text)
            .replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "<br />")
    }

    /// The date `text` names, `nil` when it names none (never 1970, never now).
    static func date(_ text: String?) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return LenientDateParser().date(from: text)
    }

    /// An author as RSS writes it, `jo@example.com (Jo Bloggs)`, reduced to the name when it
    /// has one.
    static func author(_ raw: String?) -> String? {
        guard let raw = raw.map(HTMLText.plainText), !raw.isEmpty else { return nil }
        if raw.hasSuffix(")"), let open = raw.firstIndex(of: "("), raw[..<open].contains("@") {
            let name = raw[raw.index(after: open)..<raw.index(before: raw.endIndex)]
                .trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { return name }
        }
        return raw
    }

    static func enclosure(url: String?, type: String?, length: String?, base: URL?) -> Enclosure? {
        guard let url, let absolute = LinkResolver.link(url, against: base) else { return nil }
        let type = type?.trimmingCharacters(in: .whitespacesAndNewlines)
        let length = length.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return Enclosure(url: absolute, type: type?.isEmpty == false ? type : nil, length: length)
    }
}
