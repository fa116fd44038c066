import Foundation
import Stash
import Testing

enum V5 {
    /// Renames `title` to `headline`, keeping its data; `id` becomes `number`, still unique.
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique, originalName: "id") var number: Int
        @Attribute(originalName: "title") var headline: String
        @Attribute var body: String
    }
}

enum V6 {
    /// Adds a unique token made per object, and a date made per object.
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var body: String
        @Attribute(.unique) var token: UUID = UUID()
        @Attribute var importedAt: Date = Date()
    }
}

enum V7 {
    /// Indexes `title` for queries.
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute(.indexed) var title: String
        @Attribute var body: String
    }
}

/// Schema changes beyond adding: renames, per-row defaults, indexes, and rebuilds that
/// leave other tables' rows alone.
@Suite(.bothStores) struct MigrationTests {
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func aRenamedAttributeKeepsItsColumnsData() throws
    {
        let directory = try storeWithV1Articles()
        let container = try testContainer(for: V5.Article.self, storeURL: directory.file())
        let articles = try ManagedObjectContext(container).fetch(FetchDescriptor<V5.Article>())
        #expect(articles.map(\.headline) == ["one", "two"])
        #expect(articles.map(\.number) == [1, 2])
        #expect(try sqliteShell(directory.file(), "SELECT number, headline FROM Article") == "1|one\n2|two\n")
        #expect(
            try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
                == "Article_number_unique\n")
        // The unique index moved with the column: decoding upserts by `number`.
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(V5.Article.self, from: json(#"{"number": 2, "headline": "TWO"}"#))
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*), max(headline) FROM Article") == "2|one\n")
        // Opening again with the same model changes nothing.
        _ = try testContainer(for: V5.Article.self, storeURL: directory.file())
        #expect(try sqliteShell(directory.file(), "SELECT headline FROM Article WHERE number = 2") == "TWO\n")
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func aDefaultMadePerObjectIsMadePerRow() throws
    {
        let directory = try storeWithV1Articles()
        let container = try testContainer(for: V6.Article.self, storeURL: directory.file())
        let articles = try ManagedObjectContext(container).fetch(FetchDescriptor<V6.Article>())
        #expect(articles.count == 2)
        #expect(articles[0].token != articles[1].token)
        #expect(abs(articles[0].importedAt.timeIntervalSinceNow) < 60)
        #expect(try sqliteShell(directory.file(), "SELECT count(DISTINCT token) FROM Article") == "2\n")
        #expect(
            try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
                == "Article_id_unique\nArticle_token_unique\n")
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func anIndexedAttributeGetsAnIndexTheQueryPlanUses() throws
    {
        let directory = try storeWithV1Articles()
        _ = try testContainer(for: V7.Article.self, storeURL: directory.file())
        let plan = try sqliteShell(directory.file(), "EXPLAIN QUERY PLAN SELECT _pk FROM Article WHERE title = 'one'")
        #expect(
            plan.contains("USING INDEX Article_title_index")
                || plan.contains("USING COVERING INDEX Article_title_index"))
        // Dropping the option drops the index.
        _ = try testContainer(for: V1.Article.self, storeURL: directory.file())
        #expect(
            try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
                == "Article_id_unique\n")
    }

    @Test(.sqliteOnly("a table made by hand in the SQLite file, and SQLite's twelve-step rebuild"))
    func aRebuildLeavesRowsThatPointAtTheTableAlone() throws {
        let directory = try storeWithV1Articles()
        _ = try sqliteShellWriting(
            directory.file(),
            """
            CREATE TABLE Comment (id INTEGER PRIMARY KEY, article INTEGER REFERENCES Article(_pk) ON DELETE CASCADE);
            INSERT INTO Comment (article) SELECT _pk FROM Article;
            """)
        // V2 adds a required attribute with a default: the table is rebuilt.
        _ = try testContainer(for: V2.Article.self, V2.Tag.self, storeURL: directory.file())
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Comment") == "2\n")
        #expect(try sqliteShell(directory.file(), "SELECT stars FROM Article") == "5\n5\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA foreign_key_check") == "")
    }

    @Test(.sqliteOnly("a table made by hand in the SQLite file, and SQLite's twelve-step rebuild"))
    func rowsPointingAtNothingStopARebuildAndLeaveTheStoreUntouched() throws {
        let directory = try storeWithV1Articles()
        _ = try sqliteShellWriting(
            directory.file(),
            """
            CREATE TABLE Comment (id INTEGER PRIMARY KEY, article INTEGER REFERENCES Article(_pk));
            INSERT INTO Comment (article) VALUES (99);
            """)
        let schemaBefore = try sqliteShell(directory.file(), ".schema")
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: V2.Article.self, V2.Tag.self, storeURL: directory.file())
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.entity == "Comment")
        #expect(try sqliteShell(directory.file(), ".schema") == schemaBefore)
    }
}
