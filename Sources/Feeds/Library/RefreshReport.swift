import Foundation

/// What one `feeds refresh` did, feed by feed, in the order the feeds were listed.
public struct RefreshReport: Sendable, Equatable {
    public var feeds: [FeedRefreshResult]

    public init(feeds: [FeedRefreshResult] = []) { self.feeds = feeds }

    public var newEntries: Int { feeds.reduce(0) { $0 + $1.new } }
    public var updatedEntries: Int { feeds.reduce(0) { $0 + $1.updated } }
    public var notModified: Int { feeds.filter { $0.status == .notModified }.count }
    public var failed: [FeedRefreshResult] { feeds.filter { $0.status == .failed } }
}

/// One feed's refresh.
public struct FeedRefreshResult: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case updated
        case notModified
        case failed
        /// Backed off after failures or asked to wait by `Retry-After`: not fetched this time.
        case skipped
    }

    public var url: String
    public var status: Status
    /// Entries the refresh stored for the first time.
    public var new: Int
    /// Entries already stored whose text the refresh changed.
    public var updated: Int
    public var error: String?

    public init(url: String, status: Status, new: Int = 0, updated: Int = 0, error: String? = nil) {
        self.url = url
        self.status = status
        self.new = new
        self.updated = updated
        self.error = error
    }
}

/// Progress of a refresh, for a terminal's progress line.
public struct RefreshProgress: Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var url: String

    public init(done: Int, total: Int, url: String) {
        self.done = done
        self.total = total
        self.url = url
    }
}
