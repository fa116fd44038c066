import Foundation

/// Reads Atom 1.0 (and the 0.3 names that survive: `issued`, `modified`, `mode="escaped"`)
/// from an `XMLNode` tree.
///
/// `xml:base` on the feed, an entry, a link or a content element is inherited downwards and
/// applied to links and to relative URLs inside HTML and XHTML content. Text constructs
/// follow their `type`: `text` is escaped into HTML, `html` is sanitised, `xhtml` is its
/// `div`'s children serialised and sanitised. An entry's author is its own, else its
/// source's, else the feed's; several are joined with ", ".
enum AtomReader {
    static func read(_ root: XMLNode, url: URL) -> FeedDocument {
        let base = root.base(inheriting: url)
        let feedAuthor = authors(of: root)
        let entries = root.children("entry", in: XMLNamespace.atom).map {
            entry($0, base: base, feedAuthor: feedAuthor)
        }
        let title = root.child("title", in: XMLNamespace.atom).map(plainText)
        return FeedDocument(
            kind: .atom, title: title?.isEmpty == false ? title : nil,
            siteURL: alternateLink(of: root, base: base), entries: EntryIdentity.disambiguated(entries),
            feedURL: root.children("link", in: XMLNamespace.atom).first { $0.attribute("rel") == "self" }
                .flatMap { link in
                    link.attribute("href").flatMap { LinkResolver.link($0, against: link.base(inheriting: base)) }
                })
    }

    static func entry(_ node: XMLNode, base feedBase: URL?, feedAuthor: String?) -> EntryDocument {
        let base = node.base(inheriting: feedBase)
        let title = node.child("title", in: XMLNamespace.atom).map(plainText) ?? ""
        let link = alternateLink(of: node, base: base)
        let enclosures = node.children("link", in: XMLNamespace.atom).filter { $0.attribute("rel") == "enclosure" }
            .compactMap {
                FeedMarkup.enclosure(
                    url: $0.attribute("href"), type: $0.attribute("type"), length: $0.attribute("length"),
                    base: $0.base(inheriting: base))
            }
        let summary = node.child("summary", in: XMLNamespace.atom).flatMap { html($0, base: base) }
        let contentNode = node.child("content", in: XMLNamespace.atom)
        let content = contentNode.flatMap { $0.attribute("src") == nil ? html($0, base: base) : nil }
        let published = FeedMarkup.date(
            (node.child("published", in: XMLNamespace.atom) ?? node.child("issued", in: XMLNamespace.atom))?.text)
        let updated = FeedMarkup.date(
            (node.child("updated", in: XMLNamespace.atom) ?? node.child("modified", in: XMLNamespace.atom))?.text)
        let source = node.child("source", in: XMLNamespace.atom)
        let author = authors(of: node) ?? source.flatMap(authors) ?? feedAuthor
        return EntryDocument(
            identity: EntryIdentity.identity(
                id: node.child("id", in: XMLNamespace.atom)?.text, link: link, published: published,
                title: node.child("title", in: XMLNamespace.atom)?.htmlSource ?? "",
                content: (contentNode ?? node.child("summary", in: XMLNamespace.atom))?.htmlSource),
            title: title, link: link, author: author, summary: summary, content: content, published: published,
            updated: updated, enclosures: enclosures)
    }

    /// The first `link` whose `rel` is `alternate` (or missing), absolute.
    static func alternateLink(of node: XMLNode, base: URL?) -> String? {
        let links = node.children("link", in: XMLNamespace.atom)
        let alternates = links.filter { ($0.attribute("rel") ?? "alternate") == "alternate" }
        let preferred =
            alternates.first { $0.attribute("type").map { $0.contains("html") } ?? true } ?? alternates.first
        guard let preferred, let href = preferred.attribute("href") else { return nil }
        return LinkResolver.link(href, against: preferred.base(inheriting: base))
    }

    static func authors(of node: XMLNode) -> String? {
        let names = node.children("author", in: XMLNamespace.atom).compactMap {
            $0.child("name", in: XMLNamespace.atom)?.trimmedText.map(HTMLText.collapsingWhitespace)
        }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// What a text construct's `type` says it holds.
    enum TextType { case text, html, xhtml }

    static func type(of node: XMLNode) -> TextType {
        let type = (node.attribute("type") ?? "text").lowercased()
        if type == "html" || type == "text/html" || node.attribute("mode") == "escaped" { return .html }
        if type == "xhtml" || type.hasSuffix("xhtml+xml") { return .xhtml }
        return .text
    }

    /// A text construct as sanitised HTML, links resolved against its inherited base.
    static func html(_ node: XMLNode, base: URL?) -> String? {
        let base = node.base(inheriting: base)
        switch type(of: node) {
        case .text: return FeedMarkup.escapedHTML(node.text)
        case .html: return FeedMarkup.html(node.htmlSource, base: base)
        case .xhtml:
            return FeedMarkup.html(
                xhtmlMarkup(node), base: node.child("div", in: XMLNamespace.xhtml)?.base(inheriting: base) ?? base)
        }
    }

    /// A text construct as plain text: a title.
    static func plainText(_ node: XMLNode) -> String {
        switch type(of: node) {
        case .text: HTMLText.collapsingWhitespace(node.text)
        case .html: HTMLText.plainText(node.htmlSource)
        case .xhtml: HTMLText.plainText(xhtmlMarkup(node))
        }
    }

    /// The markup inside an xhtml construct's wrapping `div` (the `div` itself is not
    /// content, RFC 4287 §3.1.1.3).
    static func xhtmlMarkup(_ node: XMLNode) -> String {
        (node.child("div", in: XMLNamespace.xhtml) ?? node).innerMarkup
    }
}
