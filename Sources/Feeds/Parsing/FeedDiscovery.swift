import Foundation

/// Finds the feeds an HTML page links to, so `feeds add` can be given a site's address.
///
/// For example, a page at `https://example.com/blog/` holding
/// `<link rel="alternate" type="application/atom+xml" href="feed.xml">` yields
/// `https://example.com/blog/feed.xml`.
public enum FeedDiscovery {
    /// The `type`s of `<link rel="alternate">` that name a feed.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/feed+json", "application/json",
        "application/rdf+xml", "application/x.atom+xml", "application/x-atom+xml",
    ]

    /// The hrefs of the page's feed links, resolved against the page's first `<base href>`
    /// (itself resolved against `baseURL`) or `baseURL`, in page order, without repeats.
    public static func feedLinks(inHTML data: Data, baseURL: URL, contentType: String?) -> [URL] {
        let html = CharsetDecoder.decode(data, contentType: contentType).text
        var base: URL?
        var hrefs: [String] = []
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            guard case .start(let name, let attributes, _) = token else { continue }
            let attribute = { (key: String) in attributes.first { $0.name == key }?.value }
            // The first `<base href>` is the base of every URL in the page, before it or after.
            if name == "base", base == nil, let href = attribute("href"),
                let resolved = LinkResolver.link(href, against: baseURL), let url = URL(string: resolved)
            {
                base = url
            }
            guard name == "link", let href = attribute("href") else { continue }
            let rels = (attribute("rel") ?? "").lowercased().split(whereSeparator: \.isWhitespace)
            let type =
                (attribute("type") ?? "").lowercased().split(separator: ";").first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard rels.contains("alternate"), feedTypes.contains(type) else { continue }
            hrefs.append(href)
        }
        var seen: Set<String> = []
        return hrefs.compactMap { href in
            guard let resolved = LinkResolver.link(href, against: base ?? baseURL), seen.insert(resolved).inserted
            else {
                return nil
            }
            return URL(string: resolved)
        }
    }
}
