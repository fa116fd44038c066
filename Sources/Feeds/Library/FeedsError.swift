import Foundation

/// A failure of a feeds command that names what it was about (a URL, an entry id, a file).
public struct FeedsError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No feed, entry or bookmark of that URL or id.
        case notFound
        /// The document is not a feed, or is broken (`FeedParseError` says how).
        case notAFeed
        /// The request failed (status, transport, timeout).
        case network
        /// The input is not what the command takes (a bad URL, a bad OPML file).
        case invalidInput
        /// The store refused (disk, another process).
        case store
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
