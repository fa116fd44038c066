import Foundation

/// A bookmark as `feeds bookmarks` lists it.
public struct BookmarkSummary: Sendable, Equatable {
    public var url: String
    public var title: String
    public var note: String
    /// Tag names, sorted.
    public var tags: [String]
    public var created: Date

    public init(url: String, title: String, note: String, tags: [String], created: Date) {
        self.url = url
        self.title = title
        self.note = note
        self.tags = tags
        self.created = created
    }
}

/// What `feeds bookmarks import` brought in.
public struct BookmarkImportReport: Sendable, Equatable {
    public var inserted: Int
    public var updated: Int
    public var pages: Int
    /// The push of the changes that waited, made before the import; `nil` when none waited.
    public var pushed: BookmarkPushReport?

    public init(inserted: Int, updated: Int, pages: Int, pushed: BookmarkPushReport? = nil) {
        self.inserted = inserted
        self.updated = updated
        self.pages = pages
        self.pushed = pushed
    }
}

/// What `feeds opml import` brought in.
public struct OPMLImportReport: Sendable, Equatable {
    public var feeds: Int
    public var folders: Int

    public init(feeds: Int, folders: Int) {
        self.feeds = feeds
        self.folders = folders
    }
}
