import Foundation

/// Makes the links a feed writes absolute: against `xml:base`, the feed's own URL, or a
/// page's `<base href>`.
enum LinkResolver {
    /// `link` resolved against `base`, or `nil` when it is empty or no URL at all. Spaces,
    /// which feeds leave in links, are percent-encoded rather than losing the link.
    static func resolve(_ link: String, against base: URL?) -> String? {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let url =
            URL(string: trimmed, relativeTo: base)
            ?? URL(string: trimmed.replacingOccurrences(of: " ", with: "%20"), relativeTo: base)
        return url?.absoluteURL.absoluteString
    }

    /// `link` resolved against `base` when the result is an `http`, `https` or `ftp` URL: what
    /// an entry, a site, a feed or an enclosure may link to. A `javascript:` or `data:` link a
    /// feed sends is no link at all.
    static func link(_ link: String, against base: URL?) -> String? {
        guard let resolved = resolve(link, against: base), let scheme = URL(string: resolved)?.scheme?.lowercased(),
            ["http", "https", "ftp"].contains(scheme)
        else { return nil }
        return resolved
    }

    /// `link` resolved against `base` as a URL, for use as the base of what is inside it.
    static func url(_ link: String?, against base: URL?) -> URL? {
        guard let link, let resolved = resolve(link, against: base) else { return base }
        return URL(string: resolved) ?? base
    }

    /// Whether `text` is an `http` or `https` URL: what lets an RSS permalink guid stand for a
    /// link.
    static func isWeb(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
}
