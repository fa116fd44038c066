import Foundation
import Stash

extension FeedLibrary {
    /// Subscribes to every feed of an OPML file, in its folders, in one save; nothing is
    /// fetched (the next refresh does). A feed subscribed to already keeps its title and
    /// moves to the file's folder. Throws `invalidInput` for a file that is not OPML or names
    /// a feed URL that is not http or https, storing nothing.
    public func importOPML(_ data: Data) async throws -> OPMLImportReport {
        let document: OPMLDocument
        do {
            document = try OPMLDocument.parse(data)
        } catch let error as OPMLError {
            throw FeedsError(.invalidInput, "not an OPML file: \(error)")
        }
        let feeds = try document.feeds.map { feed in
            (feed, try Self.webURL(feed.url).absoluteString)
        }
        return try await writing { context in
            // What the store has, read once: a fetch per outline in a context holding every
            // one made so far was quadratic (3,000 feeds: 13.7 s).
            var folders = Dictionary(
                try context.fetch(FetchDescriptor<Folder>()).map { ($0.path, $0) },
                uniquingKeysWith: { first, _ in first })
            var known = Dictionary(
                try context.fetch(FetchDescriptor<Feed>()).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first }
            )
            var foldersMade = 0
            func folder(_ path: [String]) -> Folder? {
                guard !path.isEmpty else { return nil }
                let key = Self.folderKey(path)
                if let found = folders[key] { return found }
                let made = Folder(context: context)
                made.path = key
                made.title = path[path.count - 1]
                made.parent = folder(Array(path.dropLast()))
                foldersMade += 1
                folders[key] = made
                return made
            }
            for path in document.folders { _ = folder(path) }
            var feedsMade = 0
            for (entry, url) in feeds {
                let canonical = Self.canonical(url)
                let existing = known[canonical]
                let feed = existing ?? Feed.made(canonical, in: context)
                if existing == nil {
                    known[canonical] = feed
                    feedsMade += 1
                    let title = entry.title.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !title.isEmpty { feed.title = title }
                    if let site = entry.siteURL, !site.isEmpty { feed.siteURL = site }
                }
                let target = folder(entry.folderPath)
                if feed.folder !== target { feed.folder = target }
            }
            try context.save()
            return OPMLImportReport(feeds: feedsMade, folders: foldersMade)
        }
    }

    /// An OPML 2.0 document of every subscription, in its folders, by title.
    public func exportOPML() async throws -> String {
        try await container.performBackgroundTask { context in
            let feeds = try context.fetch(
                FetchDescriptor<Feed>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.url)]))
            let entries = feeds.map { feed in
                var path: [String] = []
                var folder = feed.folder
                while let current = folder {
                    path.insert(current.title, at: 0)
                    folder = current.parent
                }
                return OPMLFeed(folderPath: path, url: feed.url, title: feed.title, siteURL: feed.siteURL)
            }
            return OPMLDocument(title: "feeds", feeds: entries).xml()
        }
    }

    /// A folder's unique path: its titles from the top, `/` between them (a `/` or `\` in a
    /// title escaped with `\`).
    static func folderKey(_ path: [String]) -> String {
        path.map { $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "/", with: "\\/") }
            .joined(separator: "/")
    }
}
