import Feeds
import Foundation
import Stash
import StashPostgres
import StashREST
import Testing

/// StashREST imports into a PostgreSQL container as into an SQLite one, unchanged.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresRESTTests {
    @MainActor @Test func aRESTFetchUpsertsIntoPostgreSQL() async throws {
        let server = try DemoServer { _ in
            [
                "/readings.json": DemoResource(
                    contentType: "application/json",
                    text: #"[{"id": 1, "name": "one", "taken": "2024-05-01T09:30:00Z"}, {"id": 2, "name": "two"}]"#)
            ]
        }
        defer { server.stop() }
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Reading.self, postgres: url)
        let api = RESTClient(baseURL: server.baseURL)
        let first = try await api.fetch([Reading].self, from: "readings.json", into: container.mainContext)
        #expect(first.map(\.name) == ["one", "two"])
        server.setResource(
            DemoResource(
                contentType: "application/json", text: #"[{"id": 2, "name": "deux"}, {"id": 3, "name": "three"}]"#),
            at: "/readings.json")
        _ = try await api.fetch([Reading].self, from: "readings.json", into: container.mainContext)
        let fresh = ManagedObjectContext(try PersistentContainer(for: Reading.self, postgres: url))
        let stored = try fresh.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.name) == ["one", "deux", "three"])
        #expect(stored[0].taken == Date(timeIntervalSince1970: 1_714_555_800))
    }

    /// The validators of conditional GET are kept in the database: fetching an unchanged
    /// document again is a 304, even from another container.
    @MainActor @Test func conditionalGetKeepsItsValidatorsInPostgreSQL() async throws {
        let server = try DemoServer { _ in
            ["/readings.json": DemoResource(contentType: "application/json", text: #"[{"id": 1, "name": "one"}]"#)]
        }
        defer { server.stop() }
        let url = try PostgresServer.newDatabase()
        let api = RESTClient(baseURL: server.baseURL)
        let first = try PersistentContainer(for: Reading.self, postgres: url)
        _ = try await api.fetch([Reading].self, from: "readings.json", into: first.mainContext)
        let second = try PersistentContainer(for: Reading.self, postgres: url)
        _ = try await api.fetch([Reading].self, from: "readings.json", into: second.mainContext)
        #expect(server.requestLog == ["GET /readings.json 200", "GET /readings.json 304"])
        #expect(try second.mainContext.fetchCount(FetchDescriptor<Reading>()) == 1)
    }
}
