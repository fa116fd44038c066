import Foundation
import Testing

@testable import Stash

/// A feed whose entries are a moving window: each document lists only its latest entries.
final class WindowFeed: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \WindowEntry.feed, decoding: .merge) var items: [WindowEntry]
}

final class WindowEntry: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var feed: WindowFeed?
    @Attribute var guid: String
    @Attribute var title: String = ""
    @Attribute var read: Bool = false

    static var uniqueConstraints: [[PartialKeyPath<WindowEntry>]] { [[\.feed, \.guid]] }
}

/// The same shape with the default rule: a decoded list replaces the stored one.
final class WholeFeed: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Relationship(deleteRule: .cascade, inverse: \WholeEntry.feed) var items: [WholeEntry]
}

final class WholeEntry: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var feed: WholeFeed?
    @Attribute var guid: String
    @Attribute var read: Bool = false

    static var uniqueConstraints: [[PartialKeyPath<WholeEntry>]] { [[\.feed, \.guid]] }
}

/// Children unique on their own: a child dropped from a replaced list keeps its row.
final class Album: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship(inverse: \Photo.album) var photos: [Photo]
}

final class Photo: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var starred: Bool = false
    @Relationship var album: Album?
}

/// Many-to-many with `.merge`: a page of labels adds to an issue's labels.
final class Card: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship(inverse: \Badge.cards, decoding: .merge) var labels: [Badge]
}

final class Badge: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship var cards: [Card]
}

@Suite(.bothStores) struct RefreshListTests {
    let both = json(#"{"url": "f", "items": [{"guid": "1", "title": "one"}, {"guid": "2", "title": "two"}]}"#)
    let onlyFirst = json(#"{"url": "f", "items": [{"guid": "1", "title": "one, edited"}]}"#)

    func rows(_ file: URL, _ table: String) throws -> String {
        try sqliteShell(
            file,
            "SELECT coalesce(f.url, 'NULL'), e.guid, e.read FROM \(table)Entry e "
                + "LEFT JOIN \(table)Feed f ON f._pk = e.feed ORDER BY e.guid, e._pk")
    }

    /// The issue's reproduction: import, mark read, a window without the entry, the first
    /// window again. Each step in a fresh context, as an app that relaunches has it, and all
    /// in one long-lived context.
    @Test(arguments: [true, false]) func aMergedListKeepsEntriesThatScrolledOutOfTheWindow(freshContexts: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, storeURL: file)
        let step = RefreshSteps(container, freshContexts: freshContexts).run
        try step { _ = try $0.decode(WindowFeed.self, from: both) }
        try step { context in
            let second = try context.fetch(FetchDescriptor<WindowEntry>(predicate: #Predicate { $0.guid == "2" }))
            second[0].read = true
        }
        try step { _ = try $0.decode(WindowFeed.self, from: onlyFirst) }
        #expect(try rows(file, "Window") == "f|1|0\nf|2|1\n")
        try step { _ = try $0.decode(WindowFeed.self, from: both) }
        #expect(try rows(file, "Window") == "f|1|0\nf|2|1\n")
        #expect(try sqliteShell(file, "SELECT guid, title FROM WindowEntry ORDER BY guid") == "1|one\n2|two\n")
        let reader = ManagedObjectContext(container)
        let feed = try reader.fetch(FetchDescriptor<WindowFeed>())[0]
        #expect(feed.items.map(\.guid).sorted() == ["1", "2"])
    }

    /// Under `.replace`, a child whose identity holds its parent cannot outlive the list: it
    /// is deleted, so no later import makes a second row for it.
    @Test(arguments: [true, false]) func aReplacedListDeletesChildrenWhoseIdentityHoldsTheParent(freshContexts: Bool)
        throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WholeFeed.self, WholeEntry.self, storeURL: file)
        let step = RefreshSteps(container, freshContexts: freshContexts).run
        try step { _ = try $0.decode(WholeFeed.self, from: both) }
        try step { context in
            try context.fetch(FetchDescriptor<WholeEntry>(predicate: #Predicate { $0.guid == "1" }))[0].read = true
        }
        try step { _ = try $0.decode(WholeFeed.self, from: onlyFirst) }
        #expect(try rows(file, "Whole") == "f|1|1\n")
        try step { _ = try $0.decode(WholeFeed.self, from: both) }
        // Entry 1 was listed every time: its read flag survives; entry 2 is new again.
        #expect(try rows(file, "Whole") == "f|1|1\nf|2|0\n")
        #expect(try sqliteShell(file, "SELECT count(*) FROM WholeEntry WHERE feed IS NULL") == "0\n")
    }

    /// A failed decode that would have deleted an orphan leaves it in place.
    @Test func aFailedDecodeDeletesNoOrphan() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WholeFeed.self, WholeEntry.self, storeURL: file)
        let context = ManagedObjectContext(container)
        _ = try context.decode(WholeFeed.self, from: both)
        try context.save()
        let entries = try context.fetch(FetchDescriptor<WholeEntry>())
        #expect(entries.count == 2)
        let bad = json(#"{"url": "f", "items": [{"guid": "1"}], "x": [}"#)
        #expect(throws: (any Error).self) { _ = try context.decode(WholeFeed.self, from: bad) }
        let feeds = json(#"[{"url": "f", "items": [{"guid": "1"}]}, {"url": 5}]"#)
        #expect(throws: StashError.self) { _ = try context.decode([WholeFeed].self, from: feeds) }
        #expect(entries.allSatisfy { !$0.isDeleted })
        #expect(!context.hasChanges)
        try context.save()
        #expect(try rows(file, "Whole") == "f|1|0\nf|2|0\n")
    }

    /// A failed decode whose list dropped an entry the user changed (a read flag not saved
    /// yet) leaves the entry and the change: the first feed's list drops entry 2 (deleted
    /// when the save reconciles the list), the second feed fails, and the decode is undone
    /// (with no undo, the next save deletes the entry).
    @Test func aFailedDecodeLeavesAnUnsavedChangeToAnEntryItDropped() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WholeFeed.self, WholeEntry.self, storeURL: file)
        let context = ManagedObjectContext(container)
        _ = try context.decode(WholeFeed.self, from: both)
        try context.save()
        let second = try context.fetch(FetchDescriptor<WholeEntry>(predicate: #Predicate { $0.guid == "2" }))[0]
        second.read = true
        let bad = json(#"[{"url": "f", "items": [{"guid": "1"}]}, {"url": 5}]"#)
        #expect(throws: StashError.self) { _ = try context.decode([WholeFeed].self, from: bad) }
        #expect(!second.isDeleted && second.read && second.feed?.url == "f")
        #expect(context.hasChanges)
        try context.save()
        #expect(try rows(file, "Whole") == "f|1|0\nf|2|1\n")
    }

    /// Children with identities of their own leave a replaced list but keep their rows and
    /// flags; listing them again brings them back, with no second row.
    @Test(.sqliteOnly("reads SQLite's typeless columns through the shell (coalesce of an integer with text)"))
    func childrenUniqueOnTheirOwnLeaveAReplacedListAndComeBack() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: Album.self, Photo.self, storeURL: file)
        let context = ManagedObjectContext(container)
        _ = try context.decode(Album.self, from: json(#"{"id": 1, "photos": [{"id": 10}, {"id": 11}]}"#))
        try context.save()
        try context.fetch(FetchDescriptor<Photo>(predicate: #Predicate { $0.id == 11 }))[0].starred = true
        try context.save()
        let fresh = ManagedObjectContext(container)
        _ = try fresh.decode(Album.self, from: json(#"{"id": 1, "photos": [{"id": 10}]}"#))
        try fresh.save()
        #expect(
            try sqliteShell(file, "SELECT id, coalesce(album, 'NULL'), starred FROM Photo ORDER BY id")
                == "10|1|0\n11|NULL|1\n")
        _ = try ManagedObjectContext(container).decode(
            Album.self, from: json(#"{"id": 1, "photos": [{"id": 10}, {"id": 11}]}"#))
        let last = ManagedObjectContext(container)
        _ = try last.decode(Album.self, from: json(#"{"id": 1, "photos": [{"id": 10}, {"id": 11}]}"#))
        try last.save()
        #expect(try sqliteShell(file, "SELECT id, album, starred FROM Photo ORDER BY id") == "10|1|0\n11|1|1\n")
    }

    /// A merged many-to-many list: each page of labels adds to the ticket's.
    @Test func aMergedManyToManyListAddsAndNeverRemoves() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: Card.self, Badge.self, storeURL: file)
        _ = try ManagedObjectContext(container).decode(Card.self, from: json(#"{"id": 1, "labels": ["bug"]}"#))
        let first = ManagedObjectContext(container)
        _ = try first.decode(Card.self, from: json(#"{"id": 1, "labels": [{"name": "bug"}, {"name": "ui"}]}"#))
        try first.save()
        let second = ManagedObjectContext(container)
        _ = try second.decode(Card.self, from: json(#"{"id": 1, "labels": [{"name": "docs"}, {"name": "bug"}]}"#))
        try second.save()
        let reader = ManagedObjectContext(container)
        let ticket = try reader.fetch(FetchDescriptor<Card>())[0]
        #expect(ticket.labels.map(\.name) == ["bug", "ui", "docs"])
        #expect(try sqliteShell(file, "SELECT count(*) FROM Badge") == "3\n")
    }
}

/// Refreshes as an app makes them: each step then a save, in one long-lived context or in a
/// fresh one each time (an app that relaunches).
final class RefreshSteps {
    let container: PersistentContainer
    let freshContexts: Bool
    private var context: ManagedObjectContext

    init(_ container: PersistentContainer, freshContexts: Bool) {
        self.container = container
        self.freshContexts = freshContexts
        context = ManagedObjectContext(container)
    }

    func run(_ body: (ManagedObjectContext) throws -> Void) throws {
        if freshContexts { context = ManagedObjectContext(container) }
        try body(context)
        try context.save()
    }
}
