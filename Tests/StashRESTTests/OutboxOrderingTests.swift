import Foundation
import PushModels
import Stash
import StashREST
import Testing

/// Orderings of saves, pushes and pulls against the test API: an edit the user saved is never
/// dropped in silence.
@Suite struct OutboxOrderingTests {
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

    func bookmark(_ url: String, _ title: String = "") -> Bookmark {
        Bookmark.new(in: context, url, title)
    }

    func link(_ url: String, _ title: String = "") -> PushLink {
        let link = PushLink(context: context)
        link.url = url
        link.title = title
        return link
    }

    func key(_ bookmark: Bookmark) -> String { bookmark.id.uuidString }

    /// A link deleted, then added again with the same URL (its unique value) before the push:
    /// the DELETE's acknowledgement deletes the copies a fetch brought back by that URL, and
    /// took the new link for one: its POST then found no row and was dropped in silence.
    @Test func aLinkDeletedThenAddedAgainWithTheSameURLSurvivesThePush() async throws {
        let api = testClient(server)
        let first = link("https://a.example", "A")
        try context.save()
        #expect(try await api.push(container).sent == 1)
        context.delete(first)
        try context.save()
        _ = link("https://a.example", "A again")
        try context.save()
        #expect(
            try store.sqlite("SELECT method || ':' || key FROM _stash_outbox ORDER BY sequence") == "DELETE:1\nPOST:")

        let report = try await api.push(container)
        #expect(report.sent == 2 && report.failed.isEmpty)
        #expect(try await server.writes().map(\.method) == ["POST", "DELETE", "POST"])
        #expect(try await server.links().values.map { $0["title"] as? String } == ["A again"])
        #expect(try store.sqlite("SELECT url, title, remoteID FROM PushLink") == "https://a.example|A again|2")
        #expect(try container.pendingChangeCount() == 0)
    }

    /// A POST refused (422) while the user, during the request, fixed the value it refused: the
    /// fix became an operation of its own (the POST was in flight). Every later push resent the
    /// POST's old body, so the object never reached the server; it is made again from the row.
    @Test func aFixMadeWhileTheRefusedPostWasInFlightGoesThrough() async throws {
        let bad = bookmark("not a url", "bad")
        try context.save()
        try await server.get("api/_fault?kind=slow&delay=1.5&method=POST")
        let container = self.container
        let server = self.server
        async let pushing = testClient(server) { $0.retry = .none }.push(container)
        try await server.waitForWrites(1)
        bad.url = "https://b.example"
        try context.save()
        let refused = try await pushing
        #expect(refused.failed.map(\.status) == [422])

        let report = try await testClient(server).push(container)
        #expect(report.failed.isEmpty)
        #expect(try await server.bookmarks()[key(bad)]?["url"] as? String == "https://b.example")
        #expect(try container.pendingChangeCount() == 0)
        // Editing again does not free it either: the edit merges into the waiting PATCH.
        bad.title = "fixed, really"
        try context.save()
        let again = try await testClient(server).push(container)
        #expect(again.failed.isEmpty)
        #expect(try await server.bookmarks()[key(bad)]?["title"] as? String == "fixed, really")
    }

    /// A new link whose POST meets a 409: the server has no version of an object it never
    /// named to read back (read from `links/`, the POST was dropped and the link never sent).
    /// It stays in the outbox, refused, and goes with a later push.
    @Test func aConflictOnANewLinksPostKeepsItWaiting() async throws {
        let first = link("https://a.example", "A")
        try context.save()
        try await server.fault("status", status: 409, method: "POST")
        let report = try await testClient(server).push(container)
        #expect(report.failed.map(\.status) == [409] && report.conflicts.isEmpty)
        #expect(try store.sqlite("SELECT url, title, remoteID FROM PushLink") == "https://a.example|A|")
        #expect(try container.pendingChangeCount() == 1)
        _ = try await testClient(server).push(container)
        #expect(try await server.links().values.map { $0["url"] as? String } == [first.url])
    }

    /// An edit saved while the object's POST is in flight is kept in the row and the outbox,
    /// and sent by the next push.
    @Test func anEditMadeWhileThePostIsInFlightIsKeptAndSent() async throws {
        let first = bookmark("https://a.example", "A")
        try context.save()
        try await server.get("api/_fault?kind=slow&delay=1.5&method=POST")
        let container = self.container
        let server = self.server
        async let pushing = testClient(server).push(container)
        try await server.waitForWrites(1)
        first.title = "B"
        try context.save()
        #expect(try await pushing.sent == 1)
        #expect(try store.sqlite("SELECT url, title, number FROM Bookmark") == "https://a.example|B|1")
        #expect(try container.pendingChangeCount() == 1)
        #expect(try await testClient(server).push(container).sent == 1)
        #expect(try await server.bookmarks()[key(first)]?["title"] as? String == "B")
    }

    /// The read flag (a local attribute) survives a pull, a push's answer and a conflict the
    /// server wins.
    @Test func theReadFlagSurvivesAPullAPushAndAConflict() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        first.read = true
        try context.save()
        _ = try await api.fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try store.sqlite("SELECT read FROM Bookmark") == "1")
        first.title = "B"
        try context.save()
        #expect(try await api.push(container).sent == 1)
        #expect(try store.sqlite("SELECT read FROM Bookmark") == "1")
        try await server.get("api/_edit?collection=bookmarks&id=\(key(first))&key=title&value=theirs")
        first.title = "mine"
        try context.save()
        #expect(try await api.push(container).conflicts.count == 1)
        #expect(try store.sqlite("SELECT title, read FROM Bookmark") == "theirs|1")
    }

    /// A push that fails halfway: the acknowledged operations leave, the failed one stays and
    /// is sent once more with the same key.
    @Test func aPushThatFailsHalfwayResendsOnlyWhatFailed() async throws {
        let a = bookmark("https://a.example", "A")
        try context.save()
        _ = bookmark("https://b.example", "B")
        try context.save()
        try await server.fault("status", status: 500, method: "POST")
        let first = try await testClient(server) { $0.retry = .none }.push(container)
        #expect(first.sent == 1 && first.failed.count == 1)
        #expect(try container.pendingChangeCount() == 1)
        #expect(try await testClient(server).push(container).sent == 1)
        let writes = try await server.writes()
        #expect(writes.map(\.status) == ["500", "201", "201"])
        #expect(writes[0].key == writes[2].key)
        #expect(try await server.bookmarks()[key(a)] != nil)
        #expect(try await server.bookmarks().count == 2)
    }
}
