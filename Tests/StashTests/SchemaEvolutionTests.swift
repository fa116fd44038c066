import Foundation
import Stash
import Testing

/// Versions of one entity, `Article`, as a model changes between app releases.
enum V1 {
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var body: String
    }
}

enum V2 {
    /// Adds an optional attribute and a defaulted one.
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var body: String
        @Attribute var subtitle: String?
        @Attribute var stars: Int = 5
    }

    final class Tag: ManagedObject, Decodable {
        @Attribute(.unique) var name: String
    }
}

enum V3 {
    /// Adds a required attribute with no default: impossible on a table with rows.
    final class Article: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var body: String
        @Attribute var author: String
    }
}

enum V4 {
    /// Drops `body`, makes `title` optional, and `id` no longer unique; `slug` becomes unique.
    final class Article: ManagedObject, Decodable {
        @Attribute var id: Int
        @Attribute var title: String?
        @Attribute(.unique) var slug: String?
    }
}

/// A store file with two articles saved by the first version of the model.
func storeWithV1Articles() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let context = ManagedObjectContext(try testContainer(for: V1.Article.self, storeURL: directory.file()))
    _ = try recipeDecoder(context).decode(
        [V1.Article].self,
        from: json(#"[{"id": 1, "title": "one", "body": "b1"}, {"id": 2, "title": "two", "body": "b2"}]"#))
    try context.save()
    return directory
}

@Suite(.bothStores) struct SchemaEvolutionTests {
    @Test func addedEntityAndAttributesMigrateInPlace() throws {
        let directory = try storeWithV1Articles()
        let container = try testContainer(for: V2.Article.self, V2.Tag.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let articles = try context.fetch(FetchDescriptor<V2.Article>())
        #expect(articles.map(\.title) == ["one", "two"])
        #expect(articles.map(\.body) == ["b1", "b2"])
        #expect(articles.allSatisfy { $0.subtitle == nil && $0.stars == 5 })
        articles[0].subtitle = "sub"
        let tag = V2.Tag(context: context)
        tag.name = "swift"
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT id, subtitle, stars FROM Article ORDER BY id")
                == "1|sub|5\n2||5\n")
        #expect(try sqliteShell(directory.file(), "SELECT name FROM Tag") == "swift\n")
        // Opening again changes nothing.
        let again = try testContainer(for: V2.Article.self, V2.Tag.self, storeURL: directory.file())
        #expect(try ManagedObjectContext(again).fetchCount(FetchDescriptor<V2.Article>()) == 2)
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func impossibleChangeFailsAndLeavesTheStoreUntouched() throws
    {
        let directory = try storeWithV1Articles()
        let schemaBefore = try sqliteShell(directory.file(), ".schema")
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: V3.Article.self, storeURL: directory.file())
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.entity == "Article")
        #expect(error?.attribute == "author")
        #expect(try sqliteShell(directory.file(), ".schema") == schemaBefore)
        let context = ManagedObjectContext(try testContainer(for: V1.Article.self, storeURL: directory.file()))
        #expect(try context.fetch(FetchDescriptor<V1.Article>()).map(\.body) == ["b1", "b2"])
    }

    @Test func requiredAttributeWithoutDefaultIsFineOnAnEmptyTable() throws {
        let directory = try TemporaryDirectory()
        _ = try testContainer(for: V1.Article.self, storeURL: directory.file())
        let context = ManagedObjectContext(try testContainer(for: V3.Article.self, storeURL: directory.file()))
        _ = try recipeDecoder(context).decode(
            V3.Article.self, from: json(#"{"id": 1, "title": "t", "body": "b", "author": "me"}"#))
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT author FROM Article") == "me\n")
    }

    @Test(.sqliteOnly("reads SQLite's catalog (sqlite_master); PostgreSQL's version rule: PostgresMigrationTests"))
    func droppedAttributeKeepsItsDataAndUniquesFollowTheModel() throws {
        let directory = try storeWithV1Articles()
        // Dropping `body`'s NOT NULL and `id`'s unique index needs a higher schema version.
        let refused = #expect(throws: StashError.self) {
            _ = try testContainer(for: V4.Article.self, storeURL: directory.file())
        }
        #expect(refused?.code == .migrationFailed)
        let context = ManagedObjectContext(
            try testContainer(for: V4.Article.self, storeURL: directory.file(), schemaVersion: 1))
        let articles = try context.fetch(FetchDescriptor<V4.Article>())
        #expect(articles.map(\.id) == [1, 2])
        articles[0].slug = "one"
        articles[1].slug = "two"
        let third = V4.Article(context: context)
        third.id = 1  // no longer unique
        third.slug = "one-again"
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT id, body, slug FROM Article")
                == "1|b1|one\n2|b2|two\n1||one-again\n")
        let indexes = try sqliteShell(
            directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
        #expect(indexes == "Article_slug_unique\n")
    }

    @Test func uniqueOverValuesThatRepeatFailsUntouched() throws {
        let directory = try TemporaryDirectory()
        do {
            let context = ManagedObjectContext(
                try testContainer(for: V4.Article.self, storeURL: directory.file()))
            for slug in ["a", "b"] {
                let article = V4.Article(context: context)
                article.id = 1
                article.slug = slug
                article.title = "x"
            }
            try context.save()
        }
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: V1.Article.self, storeURL: directory.file())
        }
        #expect(error?.code == .migrationFailed)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Article") == "2\n")
    }
}
