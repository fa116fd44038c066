import Foundation
import Stash

extension FeedLibrary {
    /// Entries newest first (published, else updated, else first seen), as `query` narrows
    /// them; deleted entries never.
    public func entries(_ query: EntryQuery) async throws -> [EntrySummary] {
        guard query.limit > 0 else { throw FeedsError(.invalidInput, "--limit must be 1 or more, not \(query.limit)") }
        return try await container.performBackgroundTask { context in
            let unreadOnly = query.unreadOnly
            let starredOnly = query.starredOnly
            let since = query.since ?? Date.distantPast
            var descriptor: FetchDescriptor<Entry>
            if let url = query.feed {
                let feedURL = try Self.feed(url, in: context).url
                descriptor = FetchDescriptor<Entry>(
                    predicate: #Predicate {
                        $0.feed?.url == feedURL && !$0.removed && (!unreadOnly || !$0.read)
                            && (!starredOnly || $0.starred) && $0.sortDate >= since
                    })
            } else {
                descriptor = FetchDescriptor<Entry>(
                    predicate: #Predicate {
                        !$0.removed && (!unreadOnly || !$0.read) && (!starredOnly || $0.starred)
                            && $0.sortDate >= since
                    })
            }
            descriptor.sortBy = [SortDescriptor(\.sortDate, order: .reverse)]
            descriptor.fetchLimit = query.limit
            return try context.fetch(descriptor).map(Self.summary(of:))
        }
    }

    /// One entry whole. Throws `notFound` naming the id.
    public func entry(id: Int64) async throws -> EntryDetail {
        try await container.performBackgroundTask { context in
            let entry = try Self.entry(id, in: context)
            return EntryDetail(
                summary: Self.summary(of: entry), updated: entry.updated, text: entry.text, content: entry.content,
                enclosures: entry.enclosures)
        }
    }

    /// Applies `change` to every entry named, in one save; throws `notFound` naming the
    /// first unknown id, changing none.
    public func mark(_ ids: [Int64], _ change: EntryChange) async throws {
        try await container.performBackgroundTask { context in
            let entries = try ids.map { try Self.entry($0, in: context) }
            for entry in entries {
                switch change {
                case .read(let read): entry.read = read
                case .starred(let starred): entry.starred = starred
                case .removed:
                    entry.removed = true
                    entry.read = true
                    // The row stays as the tombstone; its text goes, so search forgets it.
                    entry.summary = nil
                    entry.content = nil
                    entry.text = ""
                }
            }
            try context.save()
        }
    }

    /// Marks every entry of one feed read; answers how many changed.
    public func markAllRead(feed url: String) async throws -> Int {
        try await container.performBackgroundTask { context in
            let feedURL = try Self.feed(url, in: context).url
            let unread = try context.fetch(
                FetchDescriptor<Entry>(predicate: #Predicate { $0.feed?.url == feedURL && !$0.read && !$0.removed }))
            for entry in unread { entry.read = true }
            try context.save()
            return unread.count
        }
    }

    /// Full-text search over titles, summaries and contents (HTML removed), best first;
    /// deleted entries never.
    public func search(_ text: String, limit: Int = 50) async throws -> [SearchResult] {
        try await container.performBackgroundTask { context in
            var descriptor = FetchDescriptor<Entry>(predicate: #Predicate { !$0.removed })
            descriptor.fetchLimit = limit
            return try context.search(descriptor, matching: text).map { hit in
                SearchResult(
                    id: hit.object.objectID.rowID ?? 0, feed: hit.object.feed?.url ?? "", title: hit.object.title,
                    link: hit.object.link, snippet: hit.snippet)
            }
        }
    }

    /// The entry of row `id`, unless the reader deleted it; else `notFound`.
    static func entry(_ id: Int64, in context: ManagedObjectContext) throws -> Entry {
        let entry = try? context.existingObject(with: ObjectID(entityName: "Entry", rowID: id)) as? Entry
        guard let entry, !entry.removed else { throw FeedsError(.notFound, "no entry \(id) (feeds entries lists ids)") }
        return entry
    }

    static func summary(of entry: Entry) -> EntrySummary {
        EntrySummary(
            id: entry.objectID.rowID ?? 0, feed: entry.feed?.url ?? "", title: entry.title, link: entry.link,
            author: entry.author, published: entry.published ?? entry.updated, read: entry.read,
            starred: entry.starred)
    }
}
