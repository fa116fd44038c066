import Foundation
import Stash
import StashREST

/// The feeds and bookmarks manager: every command of `feeds` is one call here. It owns the
/// container; each call works in a background context of its own and answers values, so
/// calls may run at once from any task.
public final class FeedLibrary: Sendable {
    public let container: PersistentContainer
    let fetcher: FeedFetcher

    /// Opens (or makes) the store at `storeURL`, or one in memory when `nil`.
    public init(storeURL: URL?, configuration: RESTConfiguration? = nil) throws {
        container = try FeedStore.container(at: storeURL)
        fetcher = FeedFetcher(configuration: configuration ?? FeedFetcher.configuration)
    }

    // MARK: Feeds

    /// Finds the feed at `url` (following an HTML page's alternate link), fetches it and
    /// stores it with its entries. Nothing is stored when it fails. A feed subscribed to
    /// already is refreshed.
    public func add(_ url: String) async throws -> FeedSummary {
        let address = try Self.webURL(url)
        let (feedURL, response, document) = try await discover(address)
        return try await writing { context in
            let writer = DocumentWriter(context: context)
            let feed = try writer.feed(for: feedURL.absoluteString)
            _ = try writer.write(document, to: feed, validators: response.validators)
            try context.save()
            return try Self.summary(of: feed, in: context)
        }
    }

    /// Unsubscribes: the feed and its entries are deleted. Throws `notFound`.
    public func remove(_ url: String) async throws {
        try await container.performBackgroundTask { context in
            let feed = try Self.feed(url, in: context)
            context.delete(feed)
            try context.save()
        }
    }

    /// Every subscription, by title.
    public func feeds() async throws -> [FeedSummary] {
        try await container.performBackgroundTask { context in
            let feeds = try context.fetch(
                FetchDescriptor<Feed>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.url)]))
            return try feeds.map { try Self.summary(of: $0, in: context) }
        }
    }

    // MARK: Helpers shared by the topics

    /// `text` as an http or https URL, or `invalidInput` saying why not.
    static func webURL(_ text: String) throws -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { throw FeedsError(.invalidInput, "\(text): not an http or https URL") }
        return url
    }

    /// A URL as the store keeps it: as Foundation writes it once parsed (a non-ASCII path
    /// percent-encoded), scheme and host in lower case; text that is no URL as it is.
    static func canonical(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let written = URL(string: trimmed)?.absoluteString ?? trimmed
        return AttributeNormalization([.trimmed, .urlSchemeAndHost]).normalize(written)
    }

    /// The subscription to `url` (scheme and host in any case, as typed or as stored), or
    /// `notFound`.
    static func feed(_ url: String, in context: ManagedObjectContext) throws -> Feed {
        guard let feed = try Feed.stored(url, in: context) else {
            throw FeedsError(.notFound, "\(url): no such feed (feeds list shows them)")
        }
        return feed
    }

    static func summary(of feed: Feed, in context: ManagedObjectContext) throws -> FeedSummary {
        let url = feed.url
        let entries = try context.fetchCount(
            FetchDescriptor<Entry>(predicate: #Predicate { $0.feed?.url == url && !$0.removed }))
        let unread = try context.fetchCount(
            FetchDescriptor<Entry>(predicate: #Predicate { $0.feed?.url == url && !$0.removed && !$0.read }))
        return FeedSummary(
            url: feed.url, title: feed.title, site: feed.siteURL, entries: entries, unread: unread,
            lastError: feed.lastError)
    }
}
