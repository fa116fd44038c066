import Foundation
import Stash
import Testing

/// Versions of `Story` as an app's releases add and change full-text search.
enum SearchRelease {
    /// Before search: plain columns.
    enum Plain {
        final class Story: ManagedObject, Decodable {
            @Attribute(.unique) var id: Int
            @Attribute var title: String
            @Attribute var body: String?
        }
    }

    /// Title and body searchable.
    enum Searchable {
        final class Story: ManagedObject, Decodable {
            @Attribute(.unique) var id: Int
            @Attribute(.searchable) var title: String
            @Attribute(.searchable) var body: String?
        }
    }

    /// Only the body searchable.
    enum BodyOnly {
        final class Story: ManagedObject, Decodable {
            @Attribute(.unique) var id: Int
            @Attribute var title: String
            @Attribute(.searchable) var body: String?
        }
    }

    /// The searchable title renamed to `headline`.
    enum Renamed {
        final class Story: ManagedObject, Decodable {
            @Attribute(.unique) var id: Int
            @Attribute(.searchable, originalName: "title") var headline: String
            @Attribute(.searchable) var body: String?
        }
    }

    /// A new required attribute with a default: the table is rebuilt (twelve steps).
    enum Rebuilt {
        final class Story: ManagedObject, Decodable {
            @Attribute(.unique) var id: Int
            @Attribute(.searchable) var title: String
            @Attribute(.searchable) var body: String?
            @Attribute var words: Int = 0
        }
    }
}

/// Opening a store migrates its full-text index with its tables, in the same transaction.
@Suite(.sqliteOnly("FTS5 tables of the SQLite file (search is refused by name on PostgreSQL)"))
struct SearchMigrationTests {
    /// A store of two stories made by the model without search, closed.
    func storeBeforeSearch() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(
            try testContainer(for: SearchRelease.Plain.Story.self, storeURL: directory.file()))
        _ = try recipeDecoder(context).decode(
            [SearchRelease.Plain.Story].self,
            from: json(
                #"[{"id": 1, "title": "Swift on Linux", "body": "servers"}, {"id": 2, "title": "Gardening", "body": null}]"#
            ))
        try context.save()
        return directory
    }

    func schemaObjects(_ file: URL) throws -> String {
        try sqliteShell(
            file,
            "SELECT type, name FROM sqlite_master WHERE name GLOB 'Story_search*' ORDER BY type, name;")
    }

    func integrityCheck(_ file: URL) throws -> String {
        try sqliteShellWriting(
            file, "INSERT INTO \"Story_search\" (\"Story_search\") VALUES ('integrity-check'); SELECT 'ok';")
    }

    @Test func aStoreMadeBeforeSearchGetsItsIndexFilledWithItsRows() throws {
        let directory = try storeBeforeSearch()
        #expect(try schemaObjects(directory.file()) == "")
        let container = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let hits = try context.search(FetchDescriptor<SearchRelease.Searchable.Story>(), matching: "servers")
        #expect(hits.map(\.object.id) == [1])
        #expect(hits.first?.snippet == "[servers]")
        #expect(
            try schemaObjects(directory.file())
                == """
                table|Story_search
                table|Story_search_config
                table|Story_search_data
                table|Story_search_docsize
                table|Story_search_idx
                trigger|Story_search_delete
                trigger|Story_search_insert
                trigger|Story_search_update

                """)
        #expect(try integrityCheck(directory.file()) == "ok\n")
    }

    @Test func reopeningAStoreWhoseIndexIsCurrentChangesNothing() throws {
        let directory = try storeBeforeSearch()
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let before = try sqliteShell(directory.file(), "PRAGMA schema_version;")
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        #expect(try sqliteShell(directory.file(), "PRAGMA schema_version;") == before)
        #expect(!before.isEmpty)
    }

    @Test func droppingSearchableDropsTheIndexAndItsTriggers() throws {
        let directory = try storeBeforeSearch()
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let context = ManagedObjectContext(
            try testContainer(for: SearchRelease.Plain.Story.self, storeURL: directory.file()))
        #expect(try schemaObjects(directory.file()) == "")
        #expect(try context.fetchCount(FetchDescriptor<SearchRelease.Plain.Story>()) == 2)
        // Writes still work with the triggers gone.
        let story = try context.fetch(FetchDescriptor<SearchRelease.Plain.Story>())[0]
        story.title = "Edited"
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT title FROM Story WHERE id = 1;") == "Edited\n")
    }

    @Test func anAttributeThatLosesSearchableLeavesTheIndex() throws {
        let directory = try storeBeforeSearch()
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let context = ManagedObjectContext(
            try testContainer(for: SearchRelease.BodyOnly.Story.self, storeURL: directory.file()))
        let descriptor = FetchDescriptor<SearchRelease.BodyOnly.Story>()
        #expect(try context.search(descriptor, matching: "servers").map(\.object.id) == [1])
        #expect(try context.search(descriptor, matching: "linux").isEmpty)
        #expect(
            try sqliteShell(directory.file(), "SELECT sql FROM sqlite_master WHERE name = 'Story_search';")
                .contains("fts5(\"body\", content='Story'"))
        #expect(try integrityCheck(directory.file()) == "ok\n")
    }

    @Test func aRenamedSearchableColumnGetsItsIndexRemade() throws {
        let directory = try storeBeforeSearch()
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let context = ManagedObjectContext(
            try testContainer(for: SearchRelease.Renamed.Story.self, storeURL: directory.file()))
        let descriptor = FetchDescriptor<SearchRelease.Renamed.Story>()
        let hit = try #require(try context.search(descriptor, matching: "linux").first)
        #expect(hit.object.headline == "Swift on Linux")
        hit.object.headline = "Rust on Linux"
        try context.save()
        #expect(try context.search(descriptor, matching: "rust").map(\.object.id) == [1])
        #expect(try context.search(descriptor, matching: "swift").isEmpty)
        #expect(
            try sqliteShell(
                directory.file(), "SELECT \"headline\" FROM \"Story_search\" WHERE \"Story_search\" MATCH 'rust';")
                == "Rust on Linux\n")
        #expect(try integrityCheck(directory.file()) == "ok\n")
    }

    @Test func aRebuiltTableKeepsItsIndexAndTriggersPointingAtIt() throws {
        let directory = try storeBeforeSearch()
        _ = try testContainer(for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let context = ManagedObjectContext(
            try testContainer(for: SearchRelease.Rebuilt.Story.self, storeURL: directory.file()))
        let descriptor = FetchDescriptor<SearchRelease.Rebuilt.Story>()
        #expect(try context.search(descriptor, matching: "servers").map(\.object.id) == [1])
        // The triggers are on the new table: the shell's writes reach the index.
        _ = try sqliteShellWriting(
            directory.file(),
            "INSERT INTO \"Story\" (\"id\", \"title\", \"words\") VALUES (3, 'Shell story', 2); "
                + "DELETE FROM \"Story\" WHERE \"id\" = 2;")
        #expect(try context.search(descriptor, matching: "shell").map(\.object.id) == [3])
        #expect(try context.search(descriptor, matching: "gardening").isEmpty)
        #expect(
            try sqliteShell(
                directory.file(),
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'Story' "
                    + "AND sql LIKE '%Story_search%';") == "3\n")
        #expect(try integrityCheck(directory.file()) == "ok\n")
    }

    @Test func aStoreWithAnIndexIsStashsToReopenReadOnlyAndCopy() throws {
        let directory = try storeBeforeSearch()
        let container = try testContainer(
            for: SearchRelease.Searchable.Story.self, storeURL: directory.file())
        let copy = directory.file("copy.sqlite")
        try container.backup(to: copy)
        for (file, readOnly) in [(directory.file(), true), (copy, false)] {
            let reopened = try testContainer(
                for: SearchRelease.Searchable.Story.self, storeURL: file, readOnly: readOnly)
            let context = ManagedObjectContext(reopened)
            let hits = try context.search(FetchDescriptor<SearchRelease.Searchable.Story>(), matching: "linux")
            #expect(hits.map(\.object.id) == [1])
        }
        let memory = ManagedObjectContext(
            try testContainer(for: SearchRelease.Searchable.Story.self, inMemory: true))
        let story = SearchRelease.Searchable.Story(context: memory)
        story.id = 1
        story.title = "In memory"
        try memory.save()
        #expect(
            try memory.search(FetchDescriptor<SearchRelease.Searchable.Story>(), matching: "memory").count == 1)
    }

    @Test func anEntityNamedLikeAnotherEntitysIndexIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(
                for: SearchRelease.Searchable.Story.self, Story_search_data.self, storeURL: directory.file())
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.entity == "Story")
        #expect(error?.message.contains("Story_search_data") == true)

        let reserved = #expect(throws: StashError.self) {
            _ = try testContainer(for: Ranked.self, storeURL: directory.file("ranked.sqlite"))
        }
        #expect(reserved?.code == .invalidModel)
        #expect(reserved?.entity == "Ranked")
        #expect(reserved?.attribute == "rank")
    }
}

/// A searchable attribute with a name FTS5 keeps for itself.
final class Ranked: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute(.searchable) var rank: String
}

/// An entity that takes the name of one of `Story`'s index tables.
// swift-format-ignore: AlwaysUseLowerCamelCase
final class Story_search_data: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
}
