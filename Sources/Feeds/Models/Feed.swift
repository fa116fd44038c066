import Foundation
import Stash

/// A subscription: one feed document's URL and what the last refreshes learnt about it.
public final class Feed: ManagedObject {
    /// The URL subscribed to (after discovery), as fetched: the feed's identity. Scheme and
    /// host are kept in lower case, so one feed is one row however its URL was typed.
    @Attribute(.unique, normalized: [.trimmed, .urlSchemeAndHost]) public var url: String
    /// The document's own title; the URL's host until the first refresh.
    @Attribute public var title: String = ""
    /// The web site the feed belongs to (RSS `link`, Atom `rel="alternate"`, JSON Feed
    /// `home_page_url`).
    @Attribute public var siteURL: String?
    /// The format the last document was in (`FeedKind`'s raw value).
    @Attribute public var kind: String = ""
    /// The validators of the last full answer, sent back as `If-None-Match` and
    /// `If-Modified-Since`.
    @Attribute public var etag: String?
    @Attribute public var lastModified: String?
    /// When the last refresh ended, whether it brought news, a 304 or an error.
    @Attribute public var lastRefreshed: Date?
    /// Refreshes that failed in a row: the backoff grows with it; a success resets it.
    @Attribute public var errorCount: Int = 0
    /// What the last refresh's failure said, `nil` once one succeeds.
    @Attribute public var lastError: String?
    /// A refresh of every feed skips this one until then (backoff after failures,
    /// `Retry-After`); a refresh that names the feed always fetches.
    @Attribute public var nextRefresh: Date?
    /// The OPML outline this feed was filed under, if any.
    @Relationship public var folder: Folder?
    /// A feed lists a window of its entries: a refresh adds and updates, never removes.
    @Relationship(deleteRule: .cascade, inverse: \Entry.feed, decoding: .merge) public var entries: [Entry]
}
