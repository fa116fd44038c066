import Foundation
import Stash

extension Feed {
    /// The subscription to `url` (as typed or as stored: see `FeedLibrary.canonical`), if
    /// the store has one.
    static func stored(_ url: String, in context: ManagedObjectContext) throws -> Feed? {
        let canonical = FeedLibrary.canonical(url)
        return try context.fetch(FetchDescriptor<Feed>(predicate: #Predicate { $0.url == canonical })).first
    }

    /// A new subscription to `url`, titled by its host until a document gives it a title.
    static func made(_ url: String, in context: ManagedObjectContext) -> Feed {
        let canonical = FeedLibrary.canonical(url)
        let feed = Feed(context: context)
        feed.url = canonical
        feed.title = URL(string: canonical)?.host ?? canonical
        return feed
    }
}
