import Foundation
import Testing

@testable import Stash

/// A to-one read on an object that a fetch answered beside others loads the targets of its
/// window of neighbours in the answer (`FetchedRows`) in one query, as prefetching would: the
/// other reads of the window then run no query.
@Suite struct FetchedRowsTests {
    /// `count` saved books, book n by writer n ("Wn").
    private func shelf(_ count: Int = 250, at url: URL? = nil) throws -> PersistentContainer {
        let container = try graphContainer(at: url)
        let context = ManagedObjectContext(container)
        let books = (0..<count).map { #"{"id": \#($0), "writer": {"id": \#($0), "name": "W\#($0)"}}"# }
        _ = try recipeDecoder(context).decode([Book].self, from: json("[" + books.joined(separator: ",") + "]"))
        try context.save()
        return container
    }

    /// Thirty saved books fetched by id in a context; then another context moves book 5 to
    /// writer 29 and saves, which the first has not merged yet.
    private func shelfWithBookFiveMovedElsewhere() throws -> (PersistentContainer, ManagedObjectContext, [Book]) {
        let container = try shelf(30)
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        let other = ManagedObjectContext(container)
        let moved = try #require(try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 5 })).first)
        moved.writer = try other.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 29 })).first
        try other.save()
        return (container, context, books)
    }

    private func statements(_ container: PersistentContainer) -> Int {
        (container.store as! SQLiteStore).statementsRun
    }

    /// The ids of the writers `context` holds.
    private func writersHeld(_ context: ManagedObjectContext) throws -> Set<Int> {
        Set(try context.identity.state(forType: Writer.self).byRowID.objects.map { ($0 as! Writer).id })
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func aReadLoadsTheTargetsOfItsWindowInOneQuery() throws {
        let container = try shelf()
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        let before = statements(container)
        #expect(books[0].writer?.id == 0)
        #expect(statements(container) - before == 1)
        #expect(try writersHeld(context) == Set(0..<FetchedRows.windowSize))
        // The rest of the window reads what was loaded.
        #expect(books[1..<100].map { $0.writer?.id } == Array(1..<100))
        #expect(statements(container) - before == 1)
        // A read in the third window (the last fifty books), then one in the second.
        #expect(books[249].writer?.name == "W249")
        #expect(try writersHeld(context) == Set(0..<100).union(200..<250))
        #expect(books[150].writer?.name == "W150")
        #expect(statements(container) - before == 3)
        #expect(books.map { $0.writer?.id } == Array(0..<250))
        #expect(statements(container) - before == 3)
    }

    /// Windows follow the answer's order, not the row ids; a look-up of one object in
    /// between keeps the last answer of several.
    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func windowsFollowTheAnswersOrder() throws {
        let container = try shelf()
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id, order: .reverse)]))
        let one = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 7 }))
        #expect(one.first === books[242])
        let before = statements(container)
        #expect(books[10].writer?.id == 239)
        #expect(try writersHeld(context) == Set(150..<250))
        #expect(statements(container) - before == 1)
        // The looked-up book is of the answer of several: its read loads its window.
        #expect(one.first?.writer?.id == 7)
        #expect(try writersHeld(context) == Set(0..<50).union(150..<250))
        #expect(statements(container) - before == 2)
    }

    /// The neighbours keep what the context holds: a relationship set and not saved, a row
    /// another context changed (merged first), and a new book of the answer, which has no
    /// row. What the window loads is what reading each alone reads.
    @Test(.bothStores) func neighboursKeepTheirChangesAndTheirMergedRows() throws {
        let (container, context, books) = try shelfWithBookFiveMovedElsewhere()
        let twentyEight = try #require(
            try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 28 })).first)
        books[3].writer = twentyEight
        let added = Book(context: context)
        added.id = 100
        let withNew = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(withNew.count == 31 && withNew.last === added)

        #expect(withNew[0].writer?.id == 0)
        #expect(withNew[3].writer === twentyEight)
        #expect(withNew[5].writer?.id == 29)
        #expect(added.writer == nil)
        let expected = (0..<30).map { $0 == 3 ? 28 : $0 == 5 ? 29 : $0 }
        #expect(withNew.prefix(30).map { $0.writer?.id } == expected)

        let alone = ManagedObjectContext(container)
        let eachAlone = try (0..<30).map { id in
            try alone.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == id })).first?.writer?.name
        }
        #expect(eachAlone == (0..<30).map { $0 == 5 ? "W29" : "W\($0)" })
        try context.save()
        let saved = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(saved.map { $0.writer?.id } == expected + [nil])
    }

    /// While the writers have an unsaved insert, a read loads its own writer only: a loaded
    /// row that matched the insert's unique value would adopt it, which belongs to the row
    /// read, not to its neighbours'.
    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func anUnsavedInsertOfTheTargetsKeepsTheReadToItsOwnRow() throws {
        let container = try shelf(30)
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        let new = Writer(context: context)
        new.id = 29
        new.name = "mine"
        let before = statements(container)
        #expect(books[0].writer?.name == "W0")
        #expect(statements(container) - before == 1)
        #expect(try writersHeld(context).subtracting([29]) == [0])
        try context.save()
        #expect(books[1].writer?.name == "W1")
        #expect(try writersHeld(context) == Set(0..<30))
    }

    /// A window whose load failed (the writers' table renamed away by another process) is
    /// given back: once the table is back, the next read that misses loads the window in
    /// one query, not its own writer alone and each neighbour's after it. The second window
    /// of three, so that the one given back is that window, not the first.
    @Test(.sqliteOnly("renames a table with the sqlite3 shell and counts the statements SQLiteStore runs"))
    func aWindowThatFailedToLoadIsLoadedByTheNextReadThatMisses() throws {
        let directory = try TemporaryDirectory()
        let container = try shelf(at: directory.file())
        let context = ManagedObjectContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(books[0].writer?.id == 0)
        _ = try sqliteShellWriting(directory.file(), #"ALTER TABLE "Writer" RENAME TO "WriterAway""#)
        #expect(books[150].writer == nil)
        #expect(throws: StashError.self) { try context.fetch(FetchDescriptor<Book>()) }
        _ = try sqliteShellWriting(directory.file(), #"ALTER TABLE "WriterAway" RENAME TO "Writer""#)
        #expect(books[151].writer?.id == 151)
        let before = statements(container)
        #expect(books[100..<200].map { $0.writer?.id } == Array(100..<200))
        #expect(statements(container) == before)
        // The first window, loaded before the failure, is not loaded again.
        #expect(books[0..<100].map { $0.writer?.id } == Array(0..<100))
        #expect(statements(container) == before)
    }

    /// Another context's save that moved a book to another writer is merged before the read
    /// loads anything: the book reads its new writer, then and after.
    @Test(.bothStores) func aReadTakesTheWriterAnotherContextSavedSinceTheFetch() throws {
        // The books hold their context, and it its container.
        let (_, _, books) = try shelfWithBookFiveMovedElsewhere()
        #expect(books[5].writer?.id == 29)
        #expect(books[5].writer?.id == 29)
        #expect(books[6].writer?.id == 6)
        #expect(books[29].writer === books[5].writer)
    }
}
