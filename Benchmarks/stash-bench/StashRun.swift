import Foundation
import Stash

/// The Stash model: one class that is both the JSON mapping and the stored entity.
final class Article: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var subtitle: String?
    @Attribute var body: String
    @Attribute var url: URL
    /// Indexed, as a feed screen that lists the newest first wants (the baseline has it too).
    @Attribute(.indexed) var publishedAt: Date
    @Attribute var score: Double
    @Attribute var read: Bool = false
    @Attribute var authorName: String
    @Attribute var views: Int
}

/// The recipe as an app writes it: decode into a context, save. Only public API is used
/// (and the package's switch back to JSONDecoder), so the numbers are what a user gets.
enum StashRun {
    /// Opens a new store file. Not timed, like the baseline's `createStore`.
    static func createStore(at path: String) throws -> PersistentContainer {
        try PersistentContainer(for: Article.self, storeURL: URL(fileURLWithPath: path))
    }

    /// How the import decodes: `context.decode` (the byte-level reader Stash takes for
    /// models with its default decoding, or JSONDecoder when told not to, as before the
    /// reader), or the recipe (JSONDecoder with the context in `userInfo`).
    enum DecodePath: String, CaseIterable {
        case reader, jsondecoder, recipe
    }

    /// Decodes the payload into a new context (inserting, or updating what the store has)
    /// and returns the objects and the context, to be saved separately so the two steps
    /// can be timed apart.
    static func decode(_ data: Data, into container: PersistentContainer, path: DecodePath = .reader) throws
        -> (ManagedObjectContext, [Article])
    {
        let context = ManagedObjectContext(container)
        let decoder = Timestamp.makeDecoder()
        switch path {
        case .reader:
            return (context, try context.decode([Article].self, from: data, using: decoder))
        case .jsondecoder:
            decoder.userInfo[.byteReaderDisabled] = true
            return (context, try context.decode([Article].self, from: data, using: decoder))
        case .recipe:
            decoder.userInfo[.managedObjectContext] = context
            return (context, try decoder.decode([Article].self, from: data))
        }
    }

    /// The payload decoded and saved a batch at a time (`decodeAndSave`), through the
    /// byte-level reader; answers how many articles it read.
    static func decodeAndSave(_ data: Data, into container: PersistentContainer) throws -> Int {
        let context = ManagedObjectContext(container)
        return try context.decodeAndSave([Article].self, from: data, using: Timestamp.makeDecoder()).decoded
    }

    /// Every stored article through a new context, as a fresh screen of an app would. The
    /// context is returned so that it outlives the measurement, as the objects' owner would.
    static func fetchAll(from container: PersistentContainer) throws -> (ManagedObjectContext, [Article]) {
        let context = ManagedObjectContext(container)
        return (context, try context.fetch(FetchDescriptor<Article>()))
    }

    /// Reads every attribute of every object, so nothing fetched goes unread.
    static func touch(_ articles: [Article]) -> Checksum {
        var checksum = Checksum()
        checksum.add(articles)
        return checksum
    }

    /// One more view for every article, its title set as it is, then one save.
    static func addView(to articles: [Article], in context: ManagedObjectContext) throws {
        for article in articles {
            article.views += 1
            article.title = article.title
        }
        try context.save()
    }

    /// The count as Stash reports it, through a context of its own.
    static func count(in container: PersistentContainer) throws -> Int {
        try ManagedObjectContext(container).fetchCount(FetchDescriptor<Article>())
    }
}
