import Foundation
import Stash
import StashREST
import Testing

/// A model named on the API by an id the server makes (`RemoteModel.remoteKey`), as linkding
/// names bookmarks: its item paths are made when an operation is sent, and edits made before
/// the `POST` was answered wait for the id it brings.
@Suite struct RESTPushServerKeyTests {
    let server: TestServer
    let store: TemporaryStore
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() async throws {
        server = try await TestServer.start()
        store = try TemporaryStore()
        container = try pushContainer(store)
        context = ManagedObjectContext(container)
    }

    func link(_ url: String, _ title: String = "") -> PushLink {
        let link = PushLink(context: context)
        link.url = url
        link.title = title
        return link
    }

    /// The stored links as the sqlite3 shell shows them: `url|title|remoteID`.
    func rows() throws -> String {
        try store.sqlite("SELECT url, title, remoteID FROM PushLink ORDER BY url")
    }

    @Test func thePostAnswersTheIdThatNamesTheLinkInItsLaterPaths() async throws {
        let api = testClient(server)
        let first = link("https://a.example", "A")
        try context.save()
        #expect(try store.sqlite("SELECT key FROM _stash_outbox") == "")
        #expect(try await api.push(container).sent == 1)
        #expect(try rows() == "https://a.example|A|1")

        first.title = "A, renamed"
        try context.save()
        #expect(try store.sqlite("SELECT key FROM _stash_outbox") == "1")
        #expect(try await api.push(container).sent == 1)
        #expect(try await server.links()[1]?["title"] as? String == "A, renamed")

        context.delete(first)
        try context.save()
        #expect(try await api.push(container).sent == 1)
        #expect(try await server.links().isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.method) == ["POST", "PATCH", "DELETE"])
        #expect(writes.map(\.path) == ["links", "links/1", "links/1"])
        #expect(writes.map(\.status) == ["201", "200", "204"])
        #expect(!writes[0].body.contains(#""id":1"#))
        #expect(try container.pendingChangeCount() == 0)
    }

    @Test func anEditMadeBeforeThePostWasAnsweredWaitsForItsId() async throws {
        let first = link("https://a.example", "A")
        try context.save()
        // The POST is applied, its answer lost: the id is not known here.
        try await server.fault("drop", method: "POST")
        let lost = try await testClient(server) { $0.retry = .none }.push(container)
        #expect(lost.sent == 0 && lost.waiting == 1)
        first.title = "A, renamed"
        try context.save()
        #expect(try store.sqlite("SELECT method || ':' || key FROM _stash_outbox ORDER BY sequence") == "POST:\nPATCH:")

        let report = try await testClient(server).push(container)
        #expect(report.sent == 2 && report.failed.isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.method) == ["POST", "POST", "PATCH"])
        #expect(writes.map(\.path) == ["links", "links", "links/1"])
        #expect(try await server.links()[1]?["title"] as? String == "A, renamed")
        #expect(try rows() == "https://a.example|A, renamed|1")
    }

    /// A deletion made while the POST was unanswered: its row is gone, so the id comes from
    /// the POST's answer alone, and it is kept with the DELETE (here refused once by a 500 with
    /// no retries) until that is sent.
    @Test func aDeletionMadeBeforeThePostWasAnsweredKeepsTheIdItBrought() async throws {
        let first = link("https://a.example", "A")
        try context.save()
        try await server.fault("drop", method: "POST")
        let noRetry = testClient(server) { $0.retry = .none }
        _ = try await noRetry.push(container)
        context.delete(first)
        try context.save()
        #expect(
            try store.sqlite("SELECT method || ':' || key FROM _stash_outbox ORDER BY sequence") == "POST:\nDELETE:")

        try await server.fault("status", status: 500, method: "DELETE")
        let stopped = try await noRetry.push(container)
        #expect(stopped.sent == 1 && stopped.failed.count == 1)
        // The POST's answer named it, and the DELETE waits with that name.
        #expect(try store.sqlite("SELECT method || ':' || key FROM _stash_outbox") == "DELETE:1")
        #expect(try rows() == "")
        #expect(try await server.links().count == 1)

        #expect(try await noRetry.push(container).sent == 1)
        #expect(try await server.links().isEmpty)
        #expect(try await server.writes().map(\.path) == ["links", "links", "links/1", "links/1"])
        #expect(try container.pendingChangeCount() == 0)
    }

    /// An edit made in a context that does not take other contexts' saves, so its object
    /// never saw the id the push wrote into the row: the id is read from the row when the
    /// edit is sent.
    @Test func anEditThatDidNotKnowTheIdFindsItInTheRow() async throws {
        let api = testClient(server)
        context.automaticallyMergesChanges = false
        let first = link("https://a.example", "A")
        try context.save()
        #expect(try await api.push(container).sent == 1)

        first.title = "B"
        try context.save()
        #expect(try store.sqlite("SELECT method || ':' || key FROM _stash_outbox") == "PATCH:")

        let report = try await api.push(container)
        #expect(report.sent == 1 && report.failed.isEmpty)
        #expect(try await server.writes().map(\.path) == ["links", "links/1"])
        #expect(try await server.links()[1]?["title"] as? String == "B")
        #expect(try rows() == "https://a.example|B|1")
    }
}
