import Foundation

/// One hit of `feeds search`, best first.
public struct SearchResult: Sendable, Equatable {
    public var id: Int64
    public var feed: String
    public var title: String
    public var link: String?
    /// The matching words in their context, plain text.
    public var snippet: String

    public init(id: Int64, feed: String, title: String, link: String?, snippet: String) {
        self.id = id
        self.feed = feed
        self.title = title
        self.link = link
        self.snippet = snippet
    }
}
