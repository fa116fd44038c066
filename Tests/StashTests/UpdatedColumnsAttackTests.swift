import Foundation
import Testing

@testable import Stash

/// A remote shelf whose books are an ordered list.
final class AttackShelf: ManagedObject, Codable, RemoteModel {
    static let remotePath = "shelves"
    @Attribute(.unique) var name: String
    @Relationship(inverse: \AttackBook.shelf) var books: [AttackBook]
}

/// A remote book on a shelf: its foreign key and place are columns of its row.
final class AttackBook: ManagedObject, Codable, RemoteModel {
    static let remotePath = "books"
    @Attribute(.unique) var isbn: String
    @Attribute var title: String = ""
    @Relationship var shelf: AttackShelf?
}

/// Updates of remote objects record (and write) only the columns they changed: what that
/// must not lose (an in-flight PATCH, list places).
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct UpdatedColumnsAttackTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(
            for: UpdatedFeed.self, UpdatedFolder.self, AttackShelf.self, AttackBook.self,
            storeURL: directory.file())
    }

    func acknowledgeAll() throws {
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
    }

    func operations() throws -> [String] {
        try container.outboxOperations().map {
            "\($0.method.rawValue)|\($0.attributes.joined(separator: ","))|\($0.merged)"
        }
    }

    /// Shelves `s` (books 1, 2, 3 in that order) and `t` (book 4), pushed.
    func storeShelves() throws {
        let seed = ManagedObjectContext(container)
        let s = AttackShelf(context: seed)
        s.name = "s"
        let t = AttackShelf(context: seed)
        t.name = "t"
        for number in 1...4 {
            let book = AttackBook(context: seed)
            book.isbn = "\(number)"
            book.title = "B\(number)"
            if number < 4 { s.books.append(book) } else { t.books.append(book) }
        }
        try seed.save()
        try acknowledgeAll()
    }

    func order(_ shelf: String) throws -> [String] {
        let fresh = ManagedObjectContext(container)
        let shelves = try fresh.fetch(FetchDescriptor<AttackShelf>())
        return shelves.first { $0.name == shelf }!.books.map(\.isbn)
    }

    /// The first PATCH is in flight (its body sent, `B`); a later save changes the title back
    /// to `A`: the row held `B`, so it is a change, recorded, and sent once the first is
    /// acknowledged.
    @Test func aColumnChangedBackWhileThePatchIsInFlightIsSentAfterIt() throws {
        let seed = ManagedObjectContext(container)
        let feed = UpdatedFeed(context: seed)
        feed.url = "a"
        feed.title = "A"
        try seed.save()
        try acknowledgeAll()

        let context = ManagedObjectContext(container)
        let fetched = try context.fetch(FetchDescriptor<UpdatedFeed>())[0]
        fetched.title = "B"
        try context.save()
        let first = try container.outboxOperations()[0]
        let body = try context.outboxBody(for: first, using: JSONEncoder())
        #expect(try container.updateOutbox(attempted: OutboxAttempt(sequence: first.sequence, body: body)))
        fetched.title = "A"
        try context.save()
        #expect(try operations() == ["PATCH|title|0", "PATCH|title|0"])

        try container.updateOutbox(acknowledged: [first.sequence])
        let second = try container.outboxOperations()
        #expect(second.count == 1)
        let sent = try context.outboxBody(for: second[0], using: JSONEncoder())
        let text = sent.map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(text.contains(#""title":"A""#))
    }

    /// Reordering a remote shelf's books writes their places, though no book's shelf changed.
    @Test func reorderingAnOrderedListOfRemoteObjectsKeepsTheNewOrder() throws {
        try storeShelves()
        #expect(try order("s") == ["1", "2", "3"])
        let context = ManagedObjectContext(container)
        let shelf = try context.fetch(FetchDescriptor<AttackShelf>()).first { $0.name == "s" }!
        shelf.books = [shelf.books[2], shelf.books[0], shelf.books[1]]
        try context.save()
        #expect(try order("s") == ["3", "1", "2"])
    }

    /// A book set to the shelf it is on (its foreign key unchanged) while the list is loaded
    /// and reordered in the same save.
    @Test func aBookRestatedOnItsShelfWhileTheListIsReordered() throws {
        try storeShelves()
        let context = ManagedObjectContext(container)
        let shelves = try context.fetch(FetchDescriptor<AttackShelf>())
        let s = shelves.first { $0.name == "s" }!
        let books = s.books
        books[0].shelf = s
        books[0].title = "B1"
        s.books = [books[1], books[0], books[2]]
        try context.save()
        #expect(try order("s") == ["2", "1", "3"])
    }

    /// A book moved to another shelf and back before the save keeps its place; a book moved
    /// to a shelf whose list is not loaded goes last there.
    @Test func aBookMovedAwayAndBackKeepsItsPlace() throws {
        try storeShelves()
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<AttackBook>(sortBy: [SortDescriptor(\.isbn)]))
        let shelves = try context.fetch(FetchDescriptor<AttackShelf>())
        let t = shelves.first { $0.name == "t" }!
        let s = shelves.first { $0.name == "s" }!
        books[0].shelf = t
        books[0].shelf = s
        books[1].shelf = t
        try context.save()
        #expect(try order("s") == ["1", "3"])
        #expect(try order("t") == ["4", "2"])
        #expect(try operations() == ["PATCH|shelf|0"])
    }

    /// Moving a book from shelf `s` to shelf `t` with both lists loaded: `t`'s order as set.
    @Test func aBookMovedIntoALoadedListTakesItsPlace() throws {
        try storeShelves()
        let context = ManagedObjectContext(container)
        let shelves = try context.fetch(FetchDescriptor<AttackShelf>())
        let t = shelves.first { $0.name == "t" }!
        let s = shelves.first { $0.name == "s" }!
        let moving = s.books[1]
        t.books.insert(moving, at: 0)
        try context.save()
        #expect(try order("s") == ["1", "3"])
        #expect(try order("t") == ["2", "4"])
    }
}
