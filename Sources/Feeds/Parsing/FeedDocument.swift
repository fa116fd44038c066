import Foundation

/// A feed document as parsed, whatever its format: what a refresh stores.
public struct FeedDocument: Sendable, Equatable {
    public var kind: FeedKind
    /// Plain text (markup and entities resolved), trimmed; `nil` when the document has none.
    public var title: String?
    /// The site the feed belongs to, absolute.
    public var siteURL: String?
    /// JSON Feed's `next_url`, absolute: the next page of an archive.
    public var nextURL: String?
    /// In document order. Each `identity` is unique within the document.
    public var entries: [EntryDocument]
    /// Where the feed says it lives (Atom and RSS `atom:link rel="self"`, JSON Feed
    /// `feed_url`), absolute: a feed that moved may say so before its old URL stops answering.
    public var feedURL: String?

    public init(
        kind: FeedKind, title: String? = nil, siteURL: String? = nil, nextURL: String? = nil,
        entries: [EntryDocument] = [], feedURL: String? = nil
    ) {
        self.kind = kind
        self.title = title
        self.siteURL = siteURL
        self.nextURL = nextURL
        self.entries = entries
        self.feedURL = feedURL
    }
}

/// The formats a document may be in, told from its content.
public enum FeedKind: String, Sendable, Equatable, CaseIterable {
    case rss2 = "rss"
    case rss1 = "rdf"
    case atom
    case jsonFeed = "json"
}

/// One item of a document.
public struct EntryDocument: Sendable, Equatable {
    /// `EntryIdentity`'s string: never empty, unique within its document.
    public var identity: String
    /// Plain text, trimmed; `""` when the item has none.
    public var title: String
    /// Absolute; never an RSS guid with `isPermaLink="false"`.
    public var link: String?
    public var author: String?
    /// Sanitised HTML (`HTMLSanitizer`), relative links made absolute: RSS `description`, Atom
    /// `summary`, JSON Feed `summary` (plain text, escaped).
    public var summary: String?
    /// Sanitised HTML, relative links made absolute: RSS `content:encoded`, Atom `content`
    /// (none when it is out of line, `src`), JSON Feed `content_html`, else `content_text`
    /// escaped. A refresh that shows one body uses `content ?? summary`.
    public var content: String?
    public var published: Date?
    public var updated: Date?
    public var enclosures: [Enclosure]

    public init(
        identity: String, title: String = "", link: String? = nil, author: String? = nil, summary: String? = nil,
        content: String? = nil, published: Date? = nil, updated: Date? = nil, enclosures: [Enclosure] = []
    ) {
        self.identity = identity
        self.title = title
        self.link = link
        self.author = author
        self.summary = summary
        self.content = content
        self.published = published
        self.updated = updated
        self.enclosures = enclosures
    }
}
