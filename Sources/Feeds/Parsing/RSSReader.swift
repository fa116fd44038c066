import Foundation

/// Reads RSS 2.0 (and 0.9x) and RSS 1.0 (RDF, where items sit beside the channel, not in it)
/// from an `XMLNode` tree.
///
/// An item's link is its `<link>`, else an `atom:link` (alternate), else its guid when the
/// guid is a permalink (`isPermaLink` missing or true) and a URL: a guid with
/// `isPermaLink="false"` is never a link. `description` is the summary and
/// `content:encoded` the content; `pubDate`, else `dc:date`, is the published date.
enum RSSReader {
    static func read(_ root: XMLNode, url: URL, kind: FeedKind) -> FeedDocument {
        let rootBase = root.base(inheriting: url)
        let channel = root.child("channel", in: XMLNamespace.rss)
        let base = channel?.base(inheriting: rootBase) ?? rootBase
        var items = channel?.children("item", in: XMLNamespace.rss) ?? []
        if kind == .rss1 || items.isEmpty { items += root.children("item", in: XMLNamespace.rss) }
        let entries = items.map { entry($0, base: base, kind: kind) }
        return FeedDocument(
            kind: kind,
            title: (channel?.child("title", in: XMLNamespace.rss)?.text).map(FeedMarkup.title).flatMap {
                $0.isEmpty ? nil : $0
            },
            siteURL: channel?.child("link", in: XMLNamespace.rss)?.trimmedText.flatMap {
                LinkResolver.link($0, against: base)
            },
            entries: EntryIdentity.disambiguated(entries),
            feedURL: channel?.children("link", in: XMLNamespace.atom).first { $0.attribute("rel") == "self" }?
                .attribute("href").flatMap { LinkResolver.link($0, against: base) })
    }

    static func entry(_ item: XMLNode, base channelBase: URL?, kind: FeedKind) -> EntryDocument {
        let base = item.base(inheriting: channelBase)
        let guid = item.child("guid", in: XMLNamespace.rss)
        let isPermaLink = guid?.attribute("isPermaLink")?.lowercased() != "false"
        var link = item.child("link", in: XMLNamespace.rss)?.trimmedText.flatMap {
            LinkResolver.link($0, against: base)
        }
        if link == nil {
            link = item.children("link", in: XMLNamespace.atom)
                .first { ($0.attribute("rel") ?? "alternate") == "alternate" }?
                .attribute("href").flatMap { LinkResolver.link($0, against: base) }
        }
        if link == nil, isPermaLink, let text = guid?.trimmedText, LinkResolver.isWeb(text) {
            link = LinkResolver.link(text, against: base)
        }
        let rawTitle = item.child("title", in: XMLNamespace.rss)?.htmlSource
        let rawSummary = item.child("description", in: XMLNamespace.rss)?.htmlSource
        let rawContent = item.child("encoded", in: XMLNamespace.content)?.htmlSource
        let title = FeedMarkup.title(rawTitle)
        let summary = FeedMarkup.html(rawSummary, base: base)
        let content = FeedMarkup.html(rawContent, base: base)
        let published = FeedMarkup.date(
            item.child("pubDate", in: XMLNamespace.rss)?.text ?? item.child("date", in: XMLNamespace.dublinCore)?.text
                ?? item.child("issued", in: XMLNamespace.dublinCoreTerms)?.text)
        let updated = FeedMarkup.date(
            item.child("updated", in: XMLNamespace.atom)?.text
                ?? item.child("modified", in: XMLNamespace.dublinCoreTerms)?.text)
        let author = FeedMarkup.author(
            item.child("author", in: XMLNamespace.rss)?.text ?? item.child("creator", in: XMLNamespace.dublinCore)?.text
                ?? item.child("author", in: XMLNamespace.itunes)?.text)
        var enclosures = item.children("enclosure", in: XMLNamespace.rss).compactMap {
            FeedMarkup.enclosure(
                url: $0.attribute("url"), type: $0.attribute("type"), length: $0.attribute("length"), base: base)
        }
        enclosures += item.children("link", in: XMLNamespace.atom).filter { $0.attribute("rel") == "enclosure" }
            .compactMap {
                FeedMarkup.enclosure(
                    url: $0.attribute("href"), type: $0.attribute("type"), length: $0.attribute("length"), base: base)
            }
        let id = guid?.trimmedText ?? (kind == .rss1 ? item.attribute("about") : nil)
        return EntryDocument(
            identity: EntryIdentity.identity(
                id: id, link: link, published: published, title: rawTitle ?? "", content: rawContent ?? rawSummary),
            title: title, link: link, author: author, summary: summary, content: content, published: published,
            updated: updated, enclosures: enclosures)
    }
}
