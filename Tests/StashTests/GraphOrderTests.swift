import Foundation
import Testing

@testable import Stash

/// One-to-many lists keep the order they were decoded or set in, through a save and a
/// reopen, in the `<relationship>_position` column beside the foreign key.
@Suite(.bothStores) struct GraphOrderTests {
    /// A writer whose books arrive nested, in the payload's order.
    func writerJSON(_ bookIDs: [Int]) -> Data {
        let books = bookIDs.map { #"{"id": \#($0), "title": "B\#($0)"}"# }.joined(separator: ", ")
        return json(#"[{"id": 1, "name": "Ursula", "books": [\#(books)]}]"#)
    }

    /// Decodes `payload`'s writers into the store at `file` and saves them.
    func saveWriters(_ payload: Data, in file: URL) throws {
        let context = ManagedObjectContext(try graphContainer(at: file))
        _ = try recipeDecoder(context).decode([Writer].self, from: payload)
        try context.save()
    }

    func books(in file: URL) throws -> [Int] {
        let context = ManagedObjectContext(try graphContainer(at: file))
        let writer = try #require(try context.fetch(FetchDescriptor<Writer>()).first)
        return writer.books.map(\.id)
    }

    @Test func thePayloadsOrderComesBackAfterAReopen() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(writerJSON([30, 10, 20]), in: file)
        #expect(try books(in: file) == [30, 10, 20])
        #expect(
            try sqliteShell(file, "SELECT id, writer_position FROM Book ORDER BY writer_position")
                == "30|0\n10|1\n20|2\n")

        // Another order from the server: the same rows, new places.
        try saveWriters(writerJSON([20, 30, 10, 40]), in: file)
        #expect(try books(in: file) == [20, 30, 10, 40])
        #expect(try sqliteShell(file, "SELECT count(*) FROM Book") == "4\n")

        // The same order again writes nothing.
        let container = try graphContainer(at: file)
        let watcher = try graphContainer(at: file)
        let token = try watcher.store.changeToken()
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Writer].self, from: writerJSON([20, 30, 10, 40]))
        try context.save()
        #expect(try watcher.store.changeToken() == token)
    }

    @Test func aListSetInCodeIsSavedInItsOrder() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        do {
            let context = ManagedObjectContext(try graphContainer(at: file))
            _ = try recipeDecoder(context).decode([Writer].self, from: writerJSON([1, 2, 3]))
            try context.save()
            let writer = try #require(try context.fetch(FetchDescriptor<Writer>()).first)
            writer.books = writer.books.reversed()
            #expect(context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)
        }
        #expect(try books(in: file) == [3, 2, 1])
    }

    @Test func aBookThatJoinsAWriterComesLastThereAfterAReopen() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(
            json(
                #"[{"id": 1, "name": "U", "books": [{"id": 5}, {"id": 4}]}, {"id": 2, "name": "O", "books": [{"id": 9}, {"id": 1}]}]"#
            ), in: file)
        let context = ManagedObjectContext(try graphContainer(at: file))
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        // Book 1 (the lowest row id of the second writer's) moves to the first writer; a new
        // book joins the first writer through its own relationship, with the list loaded.
        #expect(writers[0].books.map(\.id) == [5, 4])
        let moved = writers[1].books[1]
        moved.writer = writers[0]
        let new = Book(context: context)
        new.id = 7
        new.writer = writers[0]
        #expect(writers[0].books.map(\.id) == [5, 4, 1, 7])
        #expect(writers[1].books.map(\.id) == [9])
        try context.save()
        let reopened = ManagedObjectContext(try graphContainer(at: file))
        let again = try reopened.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(again.map { $0.books.map(\.id) } == [[5, 4, 1, 7], [9]])
    }

    @Test func aBookMovedWhileTheListsAreNotLoadedComesLast() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(
            json(
                #"[{"id": 1, "name": "U", "books": [{"id": 8}, {"id": 2}]}, {"id": 2, "name": "O", "books": [{"id": 3}]}]"#
            ), in: file)
        do {
            // By reference, as a REST payload moves it: neither writer's list is read.
            let context = ManagedObjectContext(try graphContainer(at: file))
            _ = try recipeDecoder(context).decode([Book].self, from: json(#"[{"id": 3, "writer": 1}]"#))
            try context.save()
        }
        let context = ManagedObjectContext(try graphContainer(at: file))
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(writers.map { $0.books.map(\.id) } == [[8, 2, 3], []])
        #expect(try sqliteShell(file, "SELECT writer_position IS NULL FROM Book WHERE id = 3") == "1\n")
    }

    @Test func prefetchingGivesTheSameOrderAsLoadingOneList() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(
            json(
                #"[{"id": 1, "name": "U", "books": [{"id": 6}, {"id": 2}, {"id": 4}]}, {"id": 2, "name": "O", "books": [{"id": 5}, {"id": 1}]}]"#
            ), in: file)
        let context = ManagedObjectContext(try graphContainer(at: file))
        var descriptor = FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)])
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        let writers = try context.fetch(descriptor)
        #expect(writers.map { $0.books.map(\.id) } == [[6, 2, 4], [5, 1]])
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func aStoreFromBeforeListPlacesGainsTheColumnAndKeepsRowOrder() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(writerJSON([3, 1, 2]), in: file)
        // As a store made before places were kept: no column.
        _ = try sqliteShellWriting(file, "ALTER TABLE Book DROP COLUMN writer_position")
        #expect(try books(in: file) == [3, 1, 2])
        #expect(
            try sqliteShell(file, "SELECT count(*) FROM pragma_table_info('Book') WHERE name = 'writer_position'")
                == "1\n")
        #expect(try sqliteShell(file, "SELECT count(*) FROM Book WHERE writer_position IS NOT NULL") == "0\n")
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func reimportingNestedListsReadsThemInOneQueryAtTheSave() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        func payload(_ booksPerWriter: Int, skip: Int? = nil) -> Data {
            let writers = (1...20).map { writer in
                let books = (0..<booksPerWriter).filter { $0 != skip }.map { #"{"id": \#(writer * 100 + $0)}"# }
                return #"{"id": \#(writer), "name": "W\#(writer)", "books": [\#(books.joined(separator: ", "))]}"#
            }
            return json("[" + writers.joined(separator: ", ") + "]")
        }
        try saveWriters(payload(3), in: file)
        let container = try graphContainer(at: file)
        let store = try #require(container.store as? SQLiteStore)
        let context = ManagedObjectContext(container)
        // Each writer's second book leaves its list.
        let before = store.statementsRun
        let writers = try recipeDecoder(context).decode([Writer].self, from: payload(3, skip: 1))
        let decoding = store.statementsRun - before
        #expect(writers.allSatisfy { $0.books.count == 2 })
        try context.save()
        // Not one per writer: the unique indexes' loads, then at the save one read of all
        // twenty lists, one of the partial rows' values, the writes, and the writer's
        // `PRAGMA data_version` inside the transaction and after it (`tokenAfterOwnCommit`).
        #expect(decoding <= 6)
        #expect(store.statementsRun - before <= 14)
        #expect(try sqliteShell(file, "SELECT count(*) FROM Book WHERE writer IS NULL") == "20\n")
        #expect(
            try sqliteShell(file, "SELECT group_concat(id) FROM Book WHERE writer IS NULL AND id % 100 = 1") != "\n")
        #expect(try books(in: file).count == 2)
        let reopened = ManagedObjectContext(try graphContainer(at: file))
        let again = try reopened.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(again.map { $0.books.map(\.id) } == (1...20).map { [$0 * 100, $0 * 100 + 2] })
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func anUnorderedListKeepsNoPlacesAndReadsInRowOrder() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        func container() throws -> PersistentContainer {
            try testContainer(for: Sock.self, Hamper.self, storeURL: file)
        }
        func socks() throws -> [Int] {
            let context = ManagedObjectContext(try container())
            return try #require(try context.fetch(FetchDescriptor<Hamper>()).first).socks.map(\.id)
        }
        let payload = { (ids: [Int]) in
            json(#"[{"id": 1, "socks": [\#(ids.map { #"{"id": \#($0)}"# }.joined(separator: ", "))]}]"#)
        }
        do {
            let context = ManagedObjectContext(try container())
            _ = try recipeDecoder(context).decode([Hamper].self, from: payload([3, 1, 2]))
            try context.save()
        }
        #expect(try sqliteShell(file, "SELECT group_concat(name) FROM pragma_table_info('Sock')") == "_pk,id,hamper\n")
        #expect(try socks() == [3, 1, 2])
        // Another order writes nothing, and reads in row order still.
        let watcher = try container()
        let token = try watcher.store.changeToken()
        let context = ManagedObjectContext(try container())
        let drawers = try recipeDecoder(context).decode([Hamper].self, from: payload([2, 3, 1]))
        #expect(drawers[0].socks.map(\.id) == [2, 3, 1])
        try context.save()
        #expect(try watcher.store.changeToken() == token)
        #expect(try socks() == [3, 1, 2])
    }

    @Test func aFailedDecodeLeavesTheListAsItWas() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(writerJSON([10, 20]), in: file)
        let context = ManagedObjectContext(try graphContainer(at: file))
        let writer = try #require(try context.fetch(FetchDescriptor<Writer>()).first)
        #expect(writer.books.map(\.id) == [10, 20])
        #expect(throws: StashError.self) {
            _ = try context.decode(
                [Writer].self,
                from: json(#"[{"id": 1, "name": "Ursula", "books": [{"id": 20}, {"id": 10}]}, {"id": "bad"}]"#),
                using: JSONDecoder())
        }
        #expect(writer.books.map(\.id) == [10, 20])
        #expect(!context.hasChanges)
        try context.save()
        #expect(try books(in: file) == [10, 20])
    }

    @Test func aMemberAddedAfterARefreshJoinsTheChangedList() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(writerJSON([10, 20]), in: file)
        let context = ManagedObjectContext(try graphContainer(at: file))
        let writer = try #require(try context.fetch(FetchDescriptor<Writer>()).first)
        writer.books = writer.books.reversed()
        // A refresh makes loaded lists stale; a changed one stays the truth.
        context.refresh(writer.books[0], mergeChanges: true)
        let new = Book(context: context)
        new.id = 30
        new.writer = writer
        #expect(writer.books.map(\.id) == [20, 10, 30])
        try context.save()
        #expect(try books(in: file) == [20, 10, 30])
    }

    @Test func reimportingTheSameOrderTellsNoOtherContext() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        try saveWriters(writerJSON([30, 10, 20]), in: file)
        let container = try graphContainer(at: file)
        let watcher = ManagedObjectContext(container)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Writer].self, from: writerJSON([30, 10, 20]))
        #expect(try context.saveChanges().isEmpty)
        let notes = watcher.merger.inbox.withLock { $0 }
        #expect(notes.allSatisfy { $0.isEmpty })
    }

    @Test func anAttributeNamedLikeThePlaceColumnIsRefused() throws {
        #expect {
            _ = try testContainer(for: Bookcase.self, Volume.self, inMemory: true)
        } throws: { error in
            let error = error as? StashError
            return error?.code == .invalidModel && error?.entity == "Volume" && error?.attribute == "bookcase"
                && error?.message.contains("bookcase_position") == true
        }
    }
}

final class Bookcase: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship(inverse: \Volume.bookcase) var volumes: [Volume]
}

final class Volume: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship var bookcase: Bookcase?
    // The name the place column would take, on purpose.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    @Attribute var bookcase_position: Int = 0
}

/// A one-to-many list whose order does not matter.
final class Hamper: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship(inverse: \Sock.hamper, ordered: false) var socks: [Sock]
}

final class Sock: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship var hamper: Hamper?
}
