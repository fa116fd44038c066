import Foundation

/// The string that names an entry across refreshes: what `Entry.identity` stores, unique per
/// feed.
///
/// The rule, in order:
/// 1. the item's own id (RSS `guid`, RSS 1.0 `rdf:about`, Atom `id`, JSON Feed `id`), trimmed;
/// 2. else its link and published date: `link` alone when it has no date, else
///    `link` + `" "` + the date in RFC 3339 UTC (`2026-11-05T14:30:00Z`);
/// 3. else `"digest:"` + the FNV-1a 64 of its title, a NUL and its content (else summary), in
///    sixteen hex digits: both as the feed wrote them, before sanitising, so a change to
///    `HTMLSanitizer` never changes an identity.
///
/// Only the published date counts, never the updated one: an entry edited in place keeps
/// its identity.
///
/// Then a leading `http://` or `https://` (any case) is removed from the result, so
/// `https://example.com/1` and `http://example.com/1` are the same `example.com/1`: a feed
/// that moves its ids to https does not bring its entries back as unread. Nothing else is
/// changed (the rest of an id is case-sensitive, as RSS and Atom say).
///
/// Inside one document, the second entry with an identity already taken gets `#2`, the third
/// `#3` (skipping any suffix another entry already holds): the same document always gives
/// the same identities.
enum EntryIdentity {
    /// The identity of one entry, before disambiguation.
    static func identity(
        id: String?, link: String?, published: Date?, title: String, content: String?
    ) -> String {
        if let id = id?.trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty { return folded(id) }
        if let link = link?.trimmingCharacters(in: .whitespacesAndNewlines), !link.isEmpty {
            guard let published else { return folded(link) }
            return folded(link) + " " + published.formatted(.iso8601)
        }
        let digest = FNV1a.hash(Array(title.utf8) + [0] + Array((content ?? "").utf8))
        return "digest:" + hex(digest)
    }

    /// `identity` without a leading `http://` or `https://`.
    static func folded(_ identity: String) -> String {
        for scheme in ["https://", "http://"] where identity.lowercased().hasPrefix(scheme) {
            return String(identity.dropFirst(scheme.count))
        }
        return identity
    }

    /// `entries` with every repeated identity given the next free `#n` suffix.
    static func disambiguated(_ entries: [EntryDocument]) -> [EntryDocument] {
        var taken = Set(entries.map(\.identity))
        var seen: Set<String> = []
        var result = entries
        for index in result.indices {
            let identity = result[index].identity
            if seen.insert(identity).inserted { continue }
            var number = 2
            while taken.contains("\(identity)#\(number)") { number += 1 }
            result[index].identity = "\(identity)#\(number)"
            taken.insert(result[index].identity)
            seen.insert(result[index].identity)
        }
        return result
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
