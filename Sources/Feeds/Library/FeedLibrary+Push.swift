import Foundation
import Stash
import StashREST

/// Bookmark edits made here, sent back to the bookmarks API. `bookmark add/remove/tag` need
/// no network: each save keeps its change in the store's outbox (`Bookmark` is a
/// `RemoteModel`), and `pushBookmarks` sends what waits.
extension FeedLibrary {
    /// Adds these tags to the bookmark of `url` (those it has stay); throws `notFound`.
    public func tagBookmark(_ url: String, tags: [String]) async throws -> BookmarkSummary {
        guard !tags.isEmpty else { throw FeedsError(.invalidInput, "name a tag: feeds bookmark tag URL --tag T") }
        return try await writing { context in
            guard let bookmark = try Self.bookmark(url, in: context) else {
                throw FeedsError(.notFound, "\(url): no such bookmark (feeds bookmark add makes one)")
            }
            bookmark.addTags(try tags.map { try Self.tag($0, in: context) })
            try context.save()
            return Self.summary(of: bookmark)
        }
    }

    /// Sends the bookmark changes waiting in the store to the linkding-style API at `url`
    /// (its bookmarks endpoint, `…/api/bookmarks/`), or to the one remembered from the last
    /// import or push. What the API refuses, or a push that cannot reach it, leaves the
    /// change waiting, with the server's message; a conflict keeps the server's version.
    public func pushBookmarks(to url: String? = nil, token: String? = nil) async throws -> BookmarkPushReport {
        let endpoint: URL
        if let url {
            endpoint = try Self.webURL(url)
        } else if let remembered = try await rememberedBookmarksAPI() {
            endpoint = try Self.webURL(remembered)
        } else {
            throw FeedsError(
                .invalidInput, "no bookmarks API to push to: name it (feeds bookmarks push URL) or import from it first"
            )
        }
        var configuration = RESTConfiguration()
        if let token { configuration.authorization = .token(token) }
        let base = try Self.apiBase(endpoint)
        let api = RESTClient(baseURL: base, configuration: configuration)
        let report = try await api.push(container)
        try await rememberBookmarksAPI(base)
        let ids = report.failed.map(\.objectID) + report.conflicts.map(\.objectID)
        let urls = await container.performBackgroundTask { context in
            var urls: [ObjectID: String] = [:]
            for id in ids {
                if let bookmark = try? context.existingObject(with: id) as? Bookmark { urls[id] = bookmark.url }
            }
            return urls
        }
        return BookmarkPushReport(
            api: Self.endpoint(base), sent: report.sent,
            conflicts: report.conflicts.map {
                BookmarkPushReport.Problem(
                    url: urls[$0.objectID], method: $0.method, status: $0.status, message: $0.serverMessage)
            },
            failed: report.failed.map {
                BookmarkPushReport.Problem(
                    url: urls[$0.objectID], method: $0.method, status: $0.status, message: $0.message)
            },
            waiting: try container.pendingChangeCount())
    }

    /// What waits to be pushed, and what the API refused.
    public func status() async throws -> LibraryStatus {
        let operations = try container.outboxOperations()
        let api = try await rememberedBookmarksAPI()
        let refused = operations.filter { $0.failure != nil }
        let urls = await container.performBackgroundTask { context in
            refused.map { (try? context.existingObject(with: $0.objectID) as? Bookmark)?.url }
        }
        return LibraryStatus(
            waiting: operations.count,
            refused: zip(refused, urls).map { operation, url in
                LibraryStatus.Refusal(url: url, method: operation.method.rawValue, message: operation.failure ?? "")
            },
            api: api)
    }

    /// Keeps the bookmarks API at `base` (see `apiBase`) as the one a push without a URL
    /// goes to.
    func rememberBookmarksAPI(_ base: URL) async throws {
        let text = Self.endpoint(base)
        try await writing { context in
            let name = Setting.bookmarksAPI
            let setting =
                try context.fetch(FetchDescriptor<Setting>(predicate: #Predicate { $0.name == name })).first
                ?? Setting(context: context)
            setting.name = name
            if setting.value != text { setting.value = text }
            try context.save()
        }
    }

    func rememberedBookmarksAPI() async throws -> String? {
        try await container.performBackgroundTask { context in
            let name = Setting.bookmarksAPI
            return try context.fetch(FetchDescriptor<Setting>(predicate: #Predicate { $0.name == name })).first?.value
        }
    }

    /// The bookmarks endpoint of the API at `base`, without a query.
    static func endpoint(_ base: URL) -> String {
        base.absoluteString + Bookmark.remotePath
    }

    /// The API's root for `Bookmark.remotePath` (`api/bookmarks/`): the endpoint without it.
    static func apiBase(_ endpoint: URL) throws -> URL {
        guard var parts = URLComponents(url: endpoint, resolvingAgainstBaseURL: true) else {
            throw FeedsError(.invalidInput, "\(endpoint): not a URL")
        }
        var path = parts.path
        if !path.hasSuffix("/") { path += "/" }
        guard path.hasSuffix("/" + Bookmark.remotePath) else {
            throw FeedsError(
                .invalidInput, "\(endpoint): a bookmarks API's endpoint ends with /\(Bookmark.remotePath)")
        }
        parts.path = String(path.dropLast(Bookmark.remotePath.count))
        parts.query = nil
        parts.fragment = nil
        guard let base = parts.url else { throw FeedsError(.invalidInput, "\(endpoint): not a URL") }
        return base
    }
}
