import Foundation

/// An entry as `feeds entries` lists it; `id` is its row id, which is never reused.
public struct EntrySummary: Sendable, Equatable {
    public var id: Int64
    /// The feed's URL.
    public var feed: String
    /// Plain text.
    public var title: String
    public var link: String?
    public var author: String?
    /// The date it is listed by: published, else updated (`nil` when the feed gave neither).
    public var published: Date?
    public var read: Bool
    public var starred: Bool

    public init(
        id: Int64, feed: String, title: String, link: String?, author: String?, published: Date?, read: Bool,
        starred: Bool
    ) {
        self.id = id
        self.feed = feed
        self.title = title
        self.link = link
        self.author = author
        self.published = published
        self.read = read
        self.starred = starred
    }
}

/// One entry whole, as `feeds show` prints it.
public struct EntryDetail: Sendable, Equatable {
    public var summary: EntrySummary
    public var updated: Date?
    /// Plain text of the summary and content, HTML removed.
    public var text: String
    /// Sanitised HTML.
    public var content: String?
    public var enclosures: [Enclosure]

    public init(summary: EntrySummary, updated: Date?, text: String, content: String?, enclosures: [Enclosure]) {
        self.summary = summary
        self.updated = updated
        self.text = text
        self.content = content
        self.enclosures = enclosures
    }
}

/// What `feeds entries` asks for.
public struct EntryQuery: Sendable, Equatable {
    public var unreadOnly = false
    public var starredOnly = false
    /// A feed's URL.
    public var feed: String?
    public var since: Date?
    public var limit = 50

    public init() {}
}

/// What `feeds read`, `unread`, `star`, `unstar` and `delete` do to entries.
public enum EntryChange: Sendable, Equatable {
    case read(Bool)
    case starred(Bool)
    /// A tombstone: hidden, and never brought back by a refresh while the feed lists it.
    case removed
}
