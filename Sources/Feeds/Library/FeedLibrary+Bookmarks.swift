import Foundation
import Stash
import StashREST

extension FeedLibrary {
    /// Saves `url` (one bookmark per URL whatever the case of its scheme and host), with
    /// these tags added to any it has and the note, when given, replacing its note.
    public func addBookmark(_ url: String, tags: [String] = [], note: String? = nil) async throws -> BookmarkSummary {
        let address = try Self.webURL(url).absoluteString
        // First the row, if it is new, with no tags: saved as a list of its own, a new
        // bookmark's tags would replace those another `feeds` process gave the same URL
        // meanwhile. Matched to such a row at the save, it adopts it.
        try await writing { context in
            guard try Self.bookmark(address, in: context) == nil else { return }
            let bookmark = Bookmark()
            bookmark.url = address
            bookmark.created = Date()
            context.insert(bookmark, onMatch: .adopt)
            try context.save()
        }
        // Then the tags, added to the list as read: the save writes the links added, so
        // tags added at the same time elsewhere stay.
        return try await writing { context in
            guard let bookmark = try Self.bookmark(address, in: context) else {
                throw FeedsError(.notFound, "\(url): the bookmark was removed meanwhile")
            }
            if let note { bookmark.note = note }
            // Every fetch first: a fetch that sees another process's commit reads the lists
            // again, and a copy of the list taken before it, assigned back, would remove
            // the tags that process added.
            bookmark.addTags(try tags.map { try Self.tag($0, in: context) })
            try context.save()
            return Self.summary(of: bookmark)
        }
    }

    /// Deletes the bookmark of `url`; throws `notFound`.
    public func removeBookmark(_ url: String) async throws {
        try await container.performBackgroundTask { context in
            guard let bookmark = try Self.bookmark(url, in: context) else {
                throw FeedsError(.notFound, "\(url): no such bookmark")
            }
            context.delete(bookmark)
            try context.save()
        }
    }

    /// Every bookmark, newest first; with `tag`, those that carry it (any case).
    public func bookmarks(tag: String? = nil) async throws -> [BookmarkSummary] {
        try await container.performBackgroundTask { context in
            let bookmarks: [Bookmark]
            if let tag {
                let name = Self.tagNormalization.normalize(tag)
                let found = try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == name })).first
                bookmarks = (found?.bookmarks ?? []).sorted { $0.created > $1.created }
            } else {
                bookmarks = try context.fetch(
                    FetchDescriptor<Bookmark>(sortBy: [SortDescriptor(\.created, order: .reverse)]))
            }
            return bookmarks.map(Self.summary(of:))
        }
    }

    /// Imports a linkding-style paged API (`{"count", "next", "results": [...]}`, the
    /// token sent as `Authorization: Token T`) in one StashREST call: every page decoded
    /// into `Bookmark`s (their tags by name) and saved in one transaction, or nothing.
    ///
    /// Changes made here that wait to be pushed are pushed first: the import then brings the
    /// server's state with them in it (and the ids of bookmarks added here). A change the API
    /// refused still waits, and the import keeps its values (a pull does not undo a push).
    /// A change that waited for a bookmark's linkding id (a store imported from before ids
    /// were kept) is pushed again after the import, which brought the id.
    public func importBookmarks(from url: String, token: String? = nil) async throws -> BookmarkImportReport {
        let address = try Self.webURL(url)
        var pushed: BookmarkPushReport?
        // An endpoint of another shape than linkding's is imported from, not pushed to.
        let base = try? Self.apiBase(address)
        if base != nil, try container.pendingChangeCount() > 0 {
            pushed = try await pushBookmarks(to: address.absoluteString, token: token)
        }
        var configuration = RESTConfiguration()
        if let token { configuration.authorization = .token(token) }
        let api = RESTClient(baseURL: address, configuration: configuration)
        var options = FetchOptions()
        options.itemsKey = "results"
        options.pagination = .nextURL(key: "next")
        options.conditional = false
        // Made here, in no actor: the context belongs to this call alone.
        let context = ManagedObjectContext(container)
        do {
            let result = try await api.fetchReporting(
                [Bookmark].self, from: address.absoluteString, into: context, options: options)
            if let base { try await rememberBookmarksAPI(base) }
            if let first = pushed, first.failed.contains(where: { $0.status == nil }) {
                let second = try await pushBookmarks(to: address.absoluteString, token: token)
                pushed = BookmarkPushReport(
                    api: second.api, sent: first.sent + second.sent, conflicts: first.conflicts + second.conflicts,
                    failed: second.failed, waiting: second.waiting)
            }
            return BookmarkImportReport(
                inserted: result.report.inserted, updated: result.report.updated, pages: result.report.pages,
                pushed: pushed)
        } catch let error as RESTError {
            throw FeedsError(error.code == .decoding ? .invalidInput : .network, "\(error)")
        }
    }

    static let tagNormalization = AttributeNormalization([.trimmed, .caseFolded, .precomposed])

    static func bookmark(_ url: String, in context: ManagedObjectContext) throws -> Bookmark? {
        let normalized = canonical(url)
        return try context.fetch(FetchDescriptor<Bookmark>(predicate: #Predicate { $0.url == normalized })).first
    }

    /// The tag `name` names (any case), made when there is none.
    static func tag(_ name: String, in context: ManagedObjectContext) throws -> Tag {
        let normalized = tagNormalization.normalize(name)
        guard !normalized.isEmpty else { throw FeedsError(.invalidInput, "a tag needs a name") }
        if let tag = try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == normalized })).first {
            return tag
        }
        let tag = Tag(context: context)
        tag.name = normalized
        return tag
    }

    static func summary(of bookmark: Bookmark) -> BookmarkSummary {
        BookmarkSummary(
            url: bookmark.url, title: bookmark.title, note: bookmark.note, tags: bookmark.tags.map(\.name).sorted(),
            created: bookmark.created)
    }
}
