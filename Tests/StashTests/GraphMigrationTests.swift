import Foundation
import Testing

@testable import Stash

/// A model that gains relationships over its versions.
enum LibraryV1 {
    final class Novel: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
    }

    final class Novelist: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
    }
}

enum LibraryV2 {
    /// Gains a to-one relationship (a new column) and a many-to-many one (a new join table).
    final class Novel: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Relationship var novelist: Novelist?
        @Relationship var prizes: [Prize]
    }

    /// Gains the inverse: no column, read from the novels' one.
    final class Novelist: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Relationship(inverse: \Novel.novelist) var novels: [Novel]
    }

    final class Prize: ManagedObject, Decodable {
        @Attribute(.unique) var name: String
    }
}

@Suite(.bothStores) struct GraphMigrationTests {
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func relationshipsAndJoinTablesJoinAPopulatedStore() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        do {
            let context = ManagedObjectContext(
                try testContainer(for: LibraryV1.Novel.self, LibraryV1.Novelist.self, storeURL: file))
            _ = try recipeDecoder(context).decode(
                [LibraryV1.Novel].self, from: json(#"[{"id": 1, "title": "Kindred"}, {"id": 2, "title": "Dawn"}]"#))
            _ = try recipeDecoder(context).decode(
                [LibraryV1.Novelist].self, from: json(#"[{"id": 1, "name": "Octavia"}]"#))
            try context.save()
        }
        let container = try testContainer(
            for: LibraryV2.Novel.self, LibraryV2.Novelist.self, LibraryV2.Prize.self, storeURL: file)
        #expect(try sqliteShell(file, "SELECT id, title, novelist FROM Novel ORDER BY id") == "1|Kindred|\n2|Dawn|\n")
        #expect(try sqliteShell(file, "SELECT count(*) FROM Novel_prizes") == "0\n")
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [LibraryV2.Novel].self,
            from: json(#"[{"id": 1, "novelistId": 1, "prizes": [{"name": "Hugo"}]}, {"id": 2, "novelist": 1}]"#))
        try context.save()
        let fresh = ManagedObjectContext(container)
        let novelist = try #require(try fresh.fetch(FetchDescriptor<LibraryV2.Novelist>()).first)
        #expect(novelist.novels.map(\.title) == ["Kindred", "Dawn"])
        #expect(novelist.novels.first?.prizes.map(\.name) == ["Hugo"])
        #expect(try sqliteShell(file, "PRAGMA foreign_key_check") == "")
    }
}

/// Relationships among contexts: merged saves, conflicts, rows deleted elsewhere.
@Suite(.bothStores) struct GraphContextTests {
    @Test func changesToDifferentRelationshipsFromTwoContextsBothSurvive() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let first = ManagedObjectContext(container)
        let second = ManagedObjectContext(container)
        let firstBook = try #require(
            try first.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        let secondBook = try #require(
            try second.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        let ursula = try #require(try first.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        let publisher = try #require(try second.fetch(FetchDescriptor<Publisher>()).first)
        firstBook.writer = ursula
        secondBook.publisher = publisher
        try first.save()
        try second.save()
        let fresh = ManagedObjectContext(container)
        let book = try #require(try fresh.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        #expect(book.writer?.name == "Ursula")
        #expect(book.publisher != nil)
    }

    @Test func theSameRelationshipChangedInTwoContextsIsAConflictUnderFail() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let first = ManagedObjectContext(container)
        let second = ManagedObjectContext(container)
        second.mergePolicy = .fail
        let firstBook = try #require(
            try first.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        let secondBook = try #require(
            try second.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        let ursula = try #require(try first.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        firstBook.writer = ursula
        secondBook.writer = nil
        try first.save()
        #expect {
            try second.save()
        } throws: { error in
            let error = error as? StashError
            return error?.code == .conflict && error?.attribute == "writer"
        }
    }

    @Test func aRelatedRowDeletedElsewhereReadsAsNone() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let reader = ManagedObjectContext(container)
        let book = try #require(try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        // Another context deletes the writer (its books are nullified in the store).
        let other = ManagedObjectContext(container)
        other.delete(try #require(try other.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 2 })).first))
        try other.save()
        // The reader has not merged: its book still names the writer's row, which is gone.
        #expect(book.writer == nil)
        reader.refresh(book, mergeChanges: false)
        #expect(book.writer == nil)
    }

    @Test(.sqliteOnly("deletes a referenced row behind Stash's back, which PostgreSQL's foreign keys refuse"))
    func aRowAnotherProcessDeletedUnderTheForeignKeyReadsAsNone() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try graphContainer(at: file)
        try seedLibrary(container)
        let reader = ManagedObjectContext(container)
        let book = try #require(try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        // The sqlite3 shell does not enforce foreign keys unless told: the book's column
        // names a row that is gone.
        _ = try sqliteShellWriting(file, "DELETE FROM Writer WHERE id = 2")
        #expect(try sqliteShell(file, "SELECT writer IS NOT NULL FROM Book WHERE id = 20") == "1\n")
        #expect(book.writer == nil)
        let fresh = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])
        descriptor.relationshipKeyPathsForPrefetching = [\.writer]
        #expect(try fresh.fetch(descriptor).map { $0.writer?.name } == ["Ursula", "Ursula", nil])
    }
}
