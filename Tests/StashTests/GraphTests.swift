import Foundation
import Testing

@testable import Stash

/// Relationships in memory and in the store: inverses in step, foreign keys written in one
/// save whatever the order, related objects loaded lazily, delete rules.
@Suite(.bothStores) struct GraphTests {
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func aToOneRelationshipIsAColumnThatReferencesItsTarget() throws
    {
        let directory = try TemporaryDirectory()
        _ = try graphContainer(at: directory.file())
        let sql = try sqliteShell(directory.file(), "SELECT sql FROM sqlite_master WHERE name = 'Book'")
        #expect(sql.contains(#""writer" INTEGER REFERENCES "Writer" ("_pk") DEFERRABLE INITIALLY DEFERRED"#))
        #expect(!sql.contains("books"))
        let indexes = try sqliteShell(
            directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book' ORDER BY name")
        #expect(indexes == "Book_id_unique\nBook_publisher_index\nBook_writer_index\n")
    }

    @Test func settingEitherSideSetsTheOther() throws {
        let context = ManagedObjectContext(try graphContainer())
        let ursula = insertWriter(1, "Ursula", in: context)
        let octavia = insertWriter(2, "Octavia", in: context)
        let book = Book(context: context)
        book.id = 10
        #expect(ursula.books.isEmpty)
        book.writer = ursula
        #expect(ursula.books.map(\.id) == [10])
        book.writer = octavia
        #expect(ursula.books.isEmpty)
        #expect(octavia.books.map(\.id) == [10])

        let second = Book(context: context)
        second.id = 11
        ursula.books = [second, book]
        #expect(book.writer === ursula)
        #expect(second.writer === ursula)
        #expect(octavia.books.isEmpty)
        #expect(ursula.books.map(\.id) == [11, 10])
        ursula.books = [second]
        #expect(book.writer == nil)
        book.writer = nil
        #expect(ursula.books.map(\.id) == [11])
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func newObjectsPointingAtNewObjectsSaveInOneTransaction() throws
    {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        let writer = insertWriter(1, "Ursula", in: context)
        for id in [10, 11, 12] {
            let book = Book(context: context)
            book.id = id
            book.title = "Book \(id)"
            book.writer = writer
            let review = Review(context: context)
            review.id = id * 10
            review.book = book
        }
        try context.save()
        // Reviews and books were written before writers (the container's order), yet every
        // foreign key holds.
        #expect(
            try sqliteShell(
                directory.file(), "SELECT b.id, w.name FROM Book b JOIN Writer w ON b.writer = w._pk ORDER BY b.id")
                == "10|Ursula\n11|Ursula\n12|Ursula\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA foreign_key_check") == "")

        let fresh = ManagedObjectContext(try graphContainer(at: directory.file()))
        let books = try fresh.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(books.map { $0.writer?.name } == ["Ursula", "Ursula", "Ursula"])
        #expect(books[0].writer === books[2].writer)
        #expect(books[1].reviews.map(\.id) == [110])
        #expect(books[0].writer?.books.map(\.id) == [10, 11, 12])
    }

    @Test func anEntityThatPointsAtItselfSavesInAnyOrder() throws {
        let context = ManagedObjectContext(try graphContainer())
        // The report is inserted before its manager: its row is written first, with the
        // manager's row id set once the manager's row exists.
        let report = Employee(context: context)
        report.id = 2
        let manager = Employee(context: context)
        manager.id = 1
        report.manager = manager
        #expect(manager.reports.map(\.id) == [2])
        try context.save()
        let fresh = ManagedObjectContext(context.container)
        let loaded = try fresh.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.id == 2 }))
        #expect(loaded.first?.manager?.id == 1)
        #expect(loaded.first?.manager?.reports.first === loaded.first)
    }

    @Test func relatedObjectsLoadWhenFirstRead() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        #expect(context.registeredObjectCount == 1)
        #expect(book.writer?.name == "Ursula")
        #expect(context.registeredObjectCount == 2)
        #expect(book.reviews.map(\.stars) == [5, 4])
        #expect(context.registeredObjectCount == 4)
    }

    @Test func aToManyListSeesUnsavedChanges() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        let moved = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 11 })).first)
        moved.writer = writers[1]
        let new = Book(context: context)
        new.id = 13
        new.writer = writers[0]
        // Loaded after the changes: the store's rows, less the moved book, plus the new one;
        // a book that moves in comes after the ones already there, as the save keeps it.
        #expect(writers[0].books.map(\.id) == [10, 13])
        #expect(writers[1].books.map(\.id) == [20, 11])
        try context.save()
        let fresh = ManagedObjectContext(container)
        let saved = try fresh.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(saved.map { $0.books.map(\.id) } == [[10, 13], [20, 11]])
    }

    @Test func anotherContextsSaveReachesLoadedLists() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let reader = ManagedObjectContext(container)
        reader.automaticallyMergesChanges = true
        let writer = try #require(try reader.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        #expect(writer.books.map(\.id) == [10, 11])

        let other = ManagedObjectContext(container)
        let otherWriter = try #require(
            try other.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        let book = Book(context: other)
        book.id = 14
        book.writer = otherWriter
        try other.save()
        #expect(writer.books.map(\.id) == [10, 11, 14])
    }

    @Test func deletingNullifiesCascadesOrIsDenied() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let count = { (table: String) in try sqliteShell(directory.file(), "SELECT count(*) FROM \(table)") }

        // .nullify (the default): the writer's books stay, without a writer.
        let ursula = try #require(
            try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        let books = ursula.books
        context.delete(ursula)
        #expect(books.allSatisfy { $0.writer == nil })
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Book WHERE writer IS NULL") == "2\n")

        // .cascade: a book's reviews go with it.
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        context.delete(book)
        try context.save()
        #expect(try count("Review") == "1\n")

        // .deny: a publisher with books cannot be deleted; nothing is written.
        let publisher = try #require(try context.fetch(FetchDescriptor<Publisher>()).first)
        context.delete(publisher)
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? StashError
            return error?.code == .deleteDenied && error?.entity == "Publisher" && error?.attribute == "books"
                && error?.message.contains("still relates to 1 Book;") == true
        }
        #expect(try count("Publisher") == "1\n")
        for book in try context.fetch(FetchDescriptor<Book>()) { book.publisher = nil }
        try context.save()
        #expect(try count("Publisher") == "0\n")
    }

    @Test func aTargetOutsideTheContainerOrAToManyWithoutInverseIsRefused() throws {
        #expect {
            _ = try testContainer(for: Book.self, Review.self, inMemory: true)
        } throws: { error in
            let error = error as? StashError
            return error?.code == .invalidModel && error?.entity == "Book" && error?.attribute == "writer"
                && error?.message.contains("add Writer.self") == true
        }
    }

    /// A new object given a unique value its context already holds stands in for that
    /// object: its relationships read and write the holder's (through the wrapper's
    /// inlinable getter, inlined in optimized builds of the model's module), and a reopened
    /// context reads what was saved.
    @Test func aStandInReadsAndSetsItsHoldersRelationships() throws {
        let container = try graphContainer()
        let context = ManagedObjectContext(container)
        let ursula = insertWriter(1, "Ursula", in: context)
        let octavia = insertWriter(2, "Octavia", in: context)
        insertBooks([10], by: ursula, in: context)
        try context.save()
        let held = try #require(try context.fetch(FetchDescriptor<Book>()).first)
        let again = Book(context: context)
        again.id = 10
        #expect(again.objectID == held.objectID)
        #expect(again.writer === ursula)
        again.writer = octavia
        #expect(held.writer === octavia)
        #expect(octavia.books.map(\.id) == [10])
        #expect(ursula.books.isEmpty)
        try context.save()
        let reopened = ManagedObjectContext(container)
        let book = try #require(try reopened.fetch(FetchDescriptor<Book>()).first)
        #expect(book.writer?.name == "Octavia")
        #expect(try reopened.fetch(FetchDescriptor<Book>()).count == 1)
    }
}

/// Two writers, three books (two by the first), two reviews of book 10, one of book 20, and
/// a publisher of the first two books.
func seedLibrary(_ container: PersistentContainer) throws {
    let context = ManagedObjectContext(container)
    let publisher = Publisher(context: context)
    publisher.id = 1
    for (id, name) in [(1, "Ursula"), (2, "Octavia")] { insertWriter(id, name, in: context) }
    let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
    for (id, writer) in [(10, 0), (11, 0), (20, 1)] {
        let book = Book(context: context)
        book.id = id
        book.title = "Book \(id)"
        book.writer = writers[writer]
        if id < 20 { book.publisher = publisher }
    }
    let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
    for (id, stars, book) in [(100, 5, 0), (101, 4, 0), (200, 3, 2)] {
        let review = Review(context: context)
        review.id = id
        review.stars = stars
        review.book = books[book]
    }
    try context.save()
}
