import Foundation

/// A subscription as `feeds list` shows it.
public struct FeedSummary: Sendable, Equatable, Codable {
    public var url: String
    public var title: String
    public var site: String?
    public var entries: Int
    public var unread: Int
    public var lastError: String?

    public init(url: String, title: String, site: String?, entries: Int, unread: Int, lastError: String?) {
        self.url = url
        self.title = title
        self.site = site
        self.entries = entries
        self.unread = unread
        self.lastError = lastError
    }
}
