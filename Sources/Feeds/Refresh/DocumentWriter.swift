import Foundation
import Stash
import StashREST

/// Writes a fetched document into the store: the feed's own fields, its entries added or
/// updated by identity (never removed: a feed lists a window), the validators for the next
/// conditional GET. Entries the reader deleted stay deleted.
struct DocumentWriter {
    let context: ManagedObjectContext

    /// The feed of `url`, made when the store has none.
    func feed(for url: String) throws -> Feed {
        try Feed.stored(url, in: context) ?? Feed.made(url, in: context)
    }

    /// Stores `document` as what `feed` says now; answers the entries new to the store and
    /// those whose text changed.
    func write(
        _ document: FeedDocument, to feed: Feed, validators: HTTPValidators, now: Date = Date()
    ) throws -> (new: Int, updated: Int) {
        if let title = document.title.map(Entry.printable), !title.isEmpty, feed.title != title { feed.title = title }
        if feed.siteURL != document.siteURL, document.siteURL != nil { feed.siteURL = document.siteURL }
        if feed.kind != document.kind.rawValue { feed.kind = document.kind.rawValue }
        let identities = document.entries.map(\.identity)
        var stored: [String: Entry] = [:]
        if !feed.objectID.isTemporary {
            let url = feed.url
            let descriptor = FetchDescriptor<Entry>(
                predicate: #Predicate { $0.feed?.url == url && identities.contains($0.identity) })
            for entry in try context.fetch(descriptor) { stored[entry.identity] = entry }
        }
        var new = 0
        var updated = 0
        for document in document.entries {
            if let entry = stored[document.identity] {
                if !entry.removed, entry.apply(document) { updated += 1 }
                continue
            }
            let entry = Entry(context: context)
            entry.feed = feed
            entry.identity = document.identity
            entry.firstSeen = now
            _ = entry.apply(document)
            stored[document.identity] = entry
            new += 1
        }
        recordSuccess(of: feed, validators: validators, now: now)
        return (new, updated)
    }

    /// A refresh that got through: validators kept, failures forgotten.
    func recordSuccess(of feed: Feed, validators: HTTPValidators, now: Date = Date()) {
        if feed.etag != validators.etag { feed.etag = validators.etag }
        if feed.lastModified != validators.lastModified { feed.lastModified = validators.lastModified }
        feed.lastRefreshed = now
        if feed.errorCount != 0 { feed.errorCount = 0 }
        if feed.lastError != nil { feed.lastError = nil }
        if feed.nextRefresh != nil { feed.nextRefresh = nil }
    }

    /// A refresh that failed: counted, said, and the feed backed off.
    func recordFailure(of feed: Feed, message: String, retryAfter: TimeInterval?, now: Date = Date()) {
        feed.errorCount += 1
        feed.lastError = message
        feed.lastRefreshed = now
        feed.nextRefresh = Backoff.nextRefresh(after: feed.errorCount, retryAfter: retryAfter, now: now)
    }
}
