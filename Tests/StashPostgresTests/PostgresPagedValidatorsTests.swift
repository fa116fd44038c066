import Feeds
import Foundation
import Stash
import StashPostgres
import StashREST
import Testing

/// A paged import into PostgreSQL keeps its validators: the import's own commits move the
/// commit count (`_stash_commits`), and must not pass for another process's.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresPagedValidatorsTests {
    static func pages(_ base: URL) -> [String: DemoResource] {
        let page = { (items: String, next: String?) in
            DemoResource(
                contentType: "application/json",
                text: #"{"data": ["# + items + #"], "next": "#
                    + (next.map { "\"\(base.absoluteString)\($0)\"" } ?? "null")
                    + "}")
        }
        return [
            "/p1.json": page(#"{"id": 1, "name": "one"}, {"id": 2, "name": "two"}"#, "p2.json"),
            "/p2.json": page(#"{"id": 3, "name": "three"}, {"id": 4, "name": "four"}"#, "p3.json"),
            "/p3.json": page(#"{"id": 5, "name": "five"}"#, nil),
        ]
    }

    @MainActor @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aPagedImportThenARefreshIsNotModified(saving: FetchOptions.Saving) async throws {
        let server = try DemoServer { Self.pages($0) }
        defer { server.stop() }
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Reading.self, postgres: url)
        let api = RESTClient(baseURL: server.baseURL)
        var options = FetchOptions()
        options.itemsKey = "data"
        options.pagination = .nextURL(key: "next")
        options.saving = saving
        let first = try await api.fetchReporting(
            [Reading].self, from: "p1.json", into: container.mainContext, options: options)
        #expect(first.report.inserted == 5)
        let again = try await api.fetchReporting(
            [Reading].self, from: "p1.json", into: container.mainContext, options: options)
        #expect(again.report.notModified)
        #expect(
            server.requestLog == [
                "GET /p1.json 200", "GET /p2.json 200", "GET /p3.json 200", "GET /p1.json 304", "GET /p2.json 304",
                "GET /p3.json 304",
            ])
    }
}
