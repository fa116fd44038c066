import Foundation
import Testing

@testable import Stash

/// The exact SQL of full-text search: the index, its triggers, the ranked query.
@Suite(.sqliteOnly("the FTS5 statements SQLite runs")) struct SearchSQLTests {
    @Test func theIndexAndItsTriggers() throws {
        let entity = try EntityRegistry.shared.entity(for: SearchModels.Writeup.self)
        let search = try #require(SearchSQL(entity.schema))
        #expect(
            search.create == [
                #"CREATE VIRTUAL TABLE "Writeup_search" USING fts5("title", "body", content='Writeup', content_rowid='_pk', tokenize='unicode61 remove_diacritics 2')"#,
                #"CREATE TRIGGER "Writeup_search_insert" AFTER INSERT ON "Writeup" BEGIN INSERT INTO "Writeup_search" ("rowid", "title", "body") VALUES (new."_pk", new."title", new."body"); END"#,
                #"CREATE TRIGGER "Writeup_search_update" AFTER UPDATE OF "title", "body" ON "Writeup" BEGIN INSERT INTO "Writeup_search" ("Writeup_search", "rowid", "title", "body") VALUES ('delete', old."_pk", old."title", old."body"); INSERT INTO "Writeup_search" ("rowid", "title", "body") VALUES (new."_pk", new."title", new."body"); END"#,
                #"CREATE TRIGGER "Writeup_search_delete" AFTER DELETE ON "Writeup" BEGIN INSERT INTO "Writeup_search" ("Writeup_search", "rowid", "title", "body") VALUES ('delete', old."_pk", old."title", old."body"); END"#,
            ])
        #expect(search.rebuild == #"INSERT INTO "Writeup_search" ("Writeup_search") VALUES ('rebuild')"#)
        #expect(
            SearchSQL.drop(of: "Writeup") == [
                #"DROP TRIGGER IF EXISTS "Writeup_search_insert""#, #"DROP TRIGGER IF EXISTS "Writeup_search_update""#,
                #"DROP TRIGGER IF EXISTS "Writeup_search_delete""#, #"DROP TABLE IF EXISTS "Writeup_search""#,
            ])
        let plain = try EntityRegistry.shared.entity(for: SearchModels.Plain.self)
        #expect(SearchSQL(plain.schema) == nil)
    }

    @Test func wordsBecomeQuotedPhrasesTheLastAPrefix() {
        #expect(SearchSQL.matchExpression(["c++", "swi"], lastIsPrefix: true) == #""c++" "swi"*"#)
        #expect(
            SearchSQL.matchExpression(["\"unbalanced", "title:foo", "-x", "AND"], lastIsPrefix: false)
                == #""""unbalanced" "title:foo" "-x" "AND""#)
        #expect(ManagedObjectContext.searchTerms(in: " swift\tlinux\u{0}c++\n ") == ["swift", "linux", "c++"])
        #expect(ManagedObjectContext.searchTerms(in: " \n\t").isEmpty)
    }

    @Test func theRankedQueryWithPredicateSortAndPage() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: SearchModels.Writeup.self, storeURL: directory.file())
        let entity = try container.entity(for: SearchModels.Writeup.self)
        let store = try #require(container.store as? SQLiteStore)
        var descriptor = FetchDescriptor<SearchModels.Writeup>(
            predicate: #Predicate { $0.stars > 2 }, sortBy: [SortDescriptor(\.stars)])
        descriptor.fetchLimit = 10
        descriptor.fetchOffset = 20
        let query = SearchQuery(
            rows: try descriptor.storeQuery(for: entity), terms: ["swift", "lin"], options: SearchOptions())
        let sql = try store.renderedSearch(query)
        #expect(
            sql.text
                == #"SELECT "_pk", "id", "title", "body", "stars", "_stash_score", "_stash_snippet" FROM "Writeup" JOIN (SELECT "rowid" AS "_stash_key", -bm25("Writeup_search") AS "_stash_score", snippet("Writeup_search", -1, ?, ?, ?, ?) AS "_stash_snippet" FROM "Writeup_search" WHERE "Writeup_search" MATCH ?) ON "_pk" = "_stash_key" WHERE ("stars" > ?) ORDER BY "_stash_score" DESC, "stars", "_pk" LIMIT ? OFFSET ?"#
        )
        #expect(
            sql.parameters == [
                .text("["), .text("]"), .text("…"), .integer(12), .text(#""swift" "lin"*"#), .integer(2),
                .integer(10), .integer(20),
            ])
    }
}
