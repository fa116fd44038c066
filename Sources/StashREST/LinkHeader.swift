import Foundation

/// An HTTP `Link` header (RFC 8288): `<https://api.github.com/…&page=2>; rel="next", <…>; rel="last"`.
struct LinkHeader {
    let links: [(url: String, relations: [String])]

    init(_ value: String) {
        var links: [(String, [String])] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next comma outside quotes, and split at semicolons
            // outside quotes: `title="a; rel=next"` is a title, not a relation.
            var parameters: [String] = [""]
            var quoted = false
            while let character = rest.first {
                if character == "\"" { quoted.toggle() }
                if !quoted, character == "," { break }
                if !quoted, character == ";" {
                    parameters.append("")
                } else {
                    parameters[parameters.count - 1].append(character)
                }
                rest = rest.dropFirst()
            }
            rest = rest.dropFirst()
            var relations: [String] = []
            for parameter in parameters {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                    continue
                }
                let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                relations += value.split(separator: " ").map { $0.lowercased() }
            }
            links.append((target, relations))
        }
        self.links = links
    }

    /// The target of the first link with relation `relation`, resolved against `base`.
    func url(for relation: String, relativeTo base: URL) -> URL? {
        guard let link = links.first(where: { $0.relations.contains(relation) }) else { return nil }
        return URL(string: link.url, relativeTo: base)?.absoluteURL
    }
}
