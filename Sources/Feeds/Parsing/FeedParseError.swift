import Foundation

/// Why a document is not a feed that can be read, naming the URL it came from: a per-feed
/// error a refresh records and `feeds add` prints.
///
/// For example: `https://example.com/: not a feed: an HTML page`.
public struct FeedParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The kinds of failure, as values a caller can compare (`error.code == .notAFeed`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// An HTML page, XML with another root, JSON that is not a JSON Feed.
        public static let notAFeed = Code(name: "notAFeed")
        /// Nothing but whitespace (or nothing at all).
        public static let empty = Code(name: "empty")
        /// XML that does not parse, even after recovery.
        public static let brokenXML = Code(name: "brokenXML")
        /// A document that stops before its root element closes.
        public static let truncated = Code(name: "truncated")
        /// JSON that does not parse or does not have JSON Feed's shape.
        public static let brokenJSON = Code(name: "brokenJSON")
        /// Larger than `FeedParser.maximumSize`.
        public static let tooLarge = Code(name: "tooLarge")
    }

    public let url: URL
    public let code: Code
    /// What was wrong, without the URL: `not a feed: XML whose root is <note>`.
    public let reason: String

    public init(url: URL, code: Code, reason: String) {
        self.url = url
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(url.absoluteString): \(reason)" }
}
