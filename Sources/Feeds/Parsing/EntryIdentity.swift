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
            return folded(link) + " " + rfc3339(published)
        }
        let digest = fnv1a64(Array(title.utf8) + [0] + Array((content ?? "").utf8))
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

    /// FNV-1a, 64 bits: small, stable across runs and platforms (unlike `Hasher`), and enough
    /// to tell one untitled, unlinked item from another.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func rfc3339(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        // Civil date from days since 1970 (Howard Hinnant's civil_from_days).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3_600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }
}
