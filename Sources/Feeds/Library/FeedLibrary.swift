import Foundation
import Stash
import StashREST

/// The feeds and bookmarks manager: every command of `feeds` is one call here. It owns the
/// container; each call works in a context of its own and answers values.
public final class FeedLibrary: Sendable {
    public let container: PersistentContainer

    /// Opens (or makes) the store at `storeURL`, or one in memory when `nil`.
    public init(storeURL: URL?) throws {
        container = try FeedStore.container(at: storeURL)
    }

    // MARK: Feeds

    /// Finds the feed at `url` (following an HTML page's alternate link), fetches it and
    /// stores it with its entries. Nothing is stored when it fails.
    public func add(_ url: String) async throws -> FeedSummary {
        throw FeedsError(.invalidInput, "feeds add is being built")
    }

    /// Unsubscribes: the feed and its entries are deleted. Throws `notFound`.
    public func remove(_ url: String) async throws {
        throw FeedsError(.invalidInput, "feeds remove is being built")
    }

    /// Every subscription, by title.
    public func feeds() async throws -> [FeedSummary] {
        throw FeedsError(.invalidInput, "feeds list is being built")
    }

    /// Refreshes every feed (or the one named, which is always fetched), at most 4 at once
    /// and one request at a time per host. Never throws: each feed's failure is in the report.
    public func refresh(
        _ url: String? = nil, progress: (@Sendable (RefreshProgress) -> Void)? = nil
    ) async -> RefreshReport {
        RefreshReport()
    }

    // MARK: Entries

    public func entries(_ query: EntryQuery) async throws -> [EntrySummary] {
        throw FeedsError(.invalidInput, "feeds entries is being built")
    }

    /// Throws `notFound` naming the id.
    public func entry(id: Int64) async throws -> EntryDetail {
        throw FeedsError(.invalidInput, "feeds show is being built")
    }

    /// Applies `change` to every entry named; throws `notFound` naming the first unknown id,
    /// changing none.
    public func mark(_ ids: [Int64], _ change: EntryChange) async throws {
        throw FeedsError(.invalidInput, "feeds read is being built")
    }

    /// Marks every entry of one feed read; answers how many changed.
    public func markAllRead(feed url: String) async throws -> Int {
        throw FeedsError(.invalidInput, "feeds read --feed is being built")
    }

    /// Full-text search over titles, summaries and contents (HTML removed), best first.
    public func search(_ text: String, limit: Int = 50) async throws -> [SearchResult] {
        throw FeedsError(.invalidInput, "feeds search is being built")
    }

    // MARK: Bookmarks

    public func addBookmark(_ url: String, tags: [String] = [], note: String? = nil) async throws -> BookmarkSummary {
        throw FeedsError(.invalidInput, "feeds bookmark add is being built")
    }

    public func removeBookmark(_ url: String) async throws {
        throw FeedsError(.invalidInput, "feeds bookmark remove is being built")
    }

    /// Every bookmark, newest first; with `tag`, those that carry it (any case).
    public func bookmarks(tag: String? = nil) async throws -> [BookmarkSummary] {
        throw FeedsError(.invalidInput, "feeds bookmarks is being built")
    }

    /// Imports a linkding-style paged API (`{"count", "next", "results"}`) in one call.
    public func importBookmarks(from url: String, token: String? = nil) async throws -> BookmarkImportReport {
        throw FeedsError(.invalidInput, "feeds bookmarks import is being built")
    }

    // MARK: OPML

    public func importOPML(_ data: Data) async throws -> OPMLImportReport {
        throw FeedsError(.invalidInput, "feeds opml import is being built")
    }

    /// An OPML 2.0 document of every subscription, in its folders.
    public func exportOPML() async throws -> String {
        throw FeedsError(.invalidInput, "feeds opml export is being built")
    }
}
