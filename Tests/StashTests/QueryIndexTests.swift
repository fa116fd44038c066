import Foundation
import Testing

@testable import Stash

/// Versions of one entity whose compound indexes change.
enum IndexV1 {
    final class Entry: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var feed: Int = 0
        @Attribute var date: Date = Date(timeIntervalSince1970: 0)
    }
}

enum IndexV2 {
    final class Entry: ManagedObject, Decodable, IndexedModel {
        @Attribute(.unique) var id: Int
        @Attribute var feed: Int = 0
        @Attribute var date: Date = Date(timeIntervalSince1970: 0)

        static var indexes: [[PartialKeyPath<Entry>]] { [[\.feed, \.date]] }
    }
}

enum IndexV3 {
    final class Entry: ManagedObject, Decodable, IndexedModel {
        @Attribute(.unique) var id: Int
        @Attribute var feed: Int = 0
        @Attribute var date: Date = Date(timeIntervalSince1970: 0)

        static var indexes: [[PartialKeyPath<Entry>]] { [[\.date, \.feed], [\.feed, \.id]] }
    }
}

/// A model whose compound index names one attribute twice.
final class BadlyIndexed: ManagedObject, Decodable, IndexedModel {
    @Attribute var feed: Int = 0

    static var indexes: [[PartialKeyPath<BadlyIndexed>]] { [[\.feed, \.feed]] }
}

/// The indexes queries rely on exist, and SQLite uses them: `EXPLAIN QUERY PLAN` for the
/// common forms.
@Suite(.sqliteOnly("the indexes SQLite makes and its query plans (EXPLAIN QUERY PLAN)")) struct QueryIndexTests {
    let container: PersistentContainer

    init() throws {
        (container, _) = try seededArticles()
    }

    /// What SQLite plans for the descriptor's SELECT.
    func plan(_ descriptor: FetchDescriptor<Article>) throws -> String {
        let store = try #require(container.store as? SQLiteStore)
        return try store.queryPlan(try descriptor.storeQuery(for: try container.entity(for: Article.self)))
            .joined(separator: "\n")
    }

    @Test func aUniqueValueIsAnIndexLookUp() throws {
        let id = 4
        #expect(
            try plan(FetchDescriptor(predicate: #Predicate { $0.id == id }))
                == "SEARCH Article USING INDEX Article_id_unique (id=?)")
    }

    @Test func theNewestByAnIndexedDateReadTheIndexBackwards() throws {
        var newest = FetchDescriptor<Article>(
            predicate: #Predicate { !$0.read }, sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
        newest.fetchLimit = 20
        // No sort step: the index (date, then row id) is the order, read from the end.
        #expect(try plan(newest) == "SCAN Article USING INDEX Article_publishedAt_index")
        let cutoff = day(3)
        var recent = FetchDescriptor<Article>(
            predicate: #Predicate { $0.publishedAt > cutoff }, sortBy: [SortDescriptor(\.publishedAt)])
        recent.fetchLimit = 20
        #expect(try plan(recent) == "SEARCH Article USING INDEX Article_publishedAt_index (publishedAt>?)")
    }

    @Test func aCompoundIndexServesFilterThenOrder() throws {
        let feed = 2
        var page = FetchDescriptor<Article>(
            predicate: #Predicate { $0.feedID == feed }, sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
        page.fetchLimit = 20
        #expect(try plan(page) == "SEARCH Article USING INDEX Article_feedID_publishedAt_index (feedID=?)")
        #expect(try ManagedObjectContext(container).fetch(page).map(\.id) == [4, 3])
    }

    @Test func aCapturedListOfIDsIsLookUps() throws {
        let wanted = [1, 3, 5]
        let lines = try plan(FetchDescriptor(predicate: #Predicate { wanted.contains($0.id) }))
        #expect(lines.contains("USING INDEX Article_id_unique (id=?)") || lines.contains("USING INTEGER PRIMARY KEY"))
        #expect(!lines.contains("SCAN Article"))
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func migrationCreatesAndDropsCompoundIndexes() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        func indexes() throws -> String {
            try sqliteShell(
                file, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Entry' ORDER BY name")
        }
        let first = ManagedObjectContext(try testContainer(for: IndexV1.Entry.self, storeURL: file))
        _ = try recipeDecoder(first).decode([IndexV1.Entry].self, from: json(#"[{"id": 1, "feed": 2}]"#))
        try first.save()
        #expect(try indexes() == "Entry_id_unique\n")

        _ = try testContainer(for: IndexV2.Entry.self, storeURL: file)
        #expect(try indexes() == "Entry_feed_date_index\nEntry_id_unique\n")
        #expect(
            try sqliteShell(file, "SELECT sql FROM sqlite_master WHERE name = 'Entry_feed_date_index'")
                == "CREATE INDEX \"Entry_feed_date_index\" ON \"Entry\" (\"feed\", \"date\")\n")

        let third = ManagedObjectContext(try testContainer(for: IndexV3.Entry.self, storeURL: file))
        #expect(try indexes() == "Entry_date_feed_index\nEntry_feed_id_index\nEntry_id_unique\n")
        #expect(try third.fetchCount(FetchDescriptor<IndexV3.Entry>()) == 1)

        _ = try testContainer(for: IndexV1.Entry.self, storeURL: file)
        #expect(try indexes() == "Entry_id_unique\n")
    }

    @Test func aCompoundIndexNeedsTwoDifferentAttributes() throws {
        #expect {
            _ = try testContainer(for: BadlyIndexed.self, inMemory: true)
        } throws: { error in
            let error = error as? StashError
            return error?.code == .invalidModel && error?.entity == "BadlyIndexed"
                && error?.message.contains("two or more different attributes") == true
        }
    }
}
