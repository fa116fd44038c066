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
        return try await container.performBackgroundTask { context in
            var foldersMade = 0
            var folders: [String: Folder] = [:]
            func folder(_ path: [String]) throws -> Folder? {
                guard !path.isEmpty else { return nil }
                let key = Self.folderKey(path)
                if let known = folders[key] { return known }
                let parent = try folder(Array(path.dropLast()))
                let found = try context.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.path == key })).first
                let made = found ?? Folder(context: context)
                if found == nil {
                    made.path = key
                    made.title = path[path.count - 1]
                    made.parent = parent
                    foldersMade += 1
                }
                folders[key] = made
                return made
            }
            for path in document.folders { _ = try folder(path) }
            var feedsMade = 0
            for (entry, url) in feeds {
                let writer = DocumentWriter(context: context)
                let feed = try writer.feed(for: url)
                if feed.objectID.isTemporary {
                    feedsMade += 1
                    let title = entry.title.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !title.isEmpty { feed.title = title }
                    if let site = entry.siteURL, !site.isEmpty { feed.siteURL = site }
                }
                let target = try folder(entry.folderPath)
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
