import Foundation
import PushModels
import Stash
import StashREST
import Testing

/// Issue 19: local edits pushed back to a real API on 127.0.0.1, with idempotency keys,
/// ETags and `If-Match`, server-made fields, and faults on demand. Each test checks what the
/// server holds and what the store holds afterwards.
@Suite struct RESTPushTests {
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

    func key(_ bookmark: Bookmark) -> String { bookmark.id.uuidString }

    /// A bookmark pushed, then retitled on the server ("theirs") and here ("mine", saved and
    /// waiting): the set-up of every conflict.
    func editedHereAndThere() async throws -> (RESTClient, Bookmark) {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        try await server.get("api/_edit?collection=bookmarks&id=\(key(first))&key=title&value=theirs")
        first.title = "mine"
        try context.save()
        return (api, first)
    }

    /// The stored bookmarks as the sqlite3 shell shows them: `url|title|number`.
    func rows() throws -> String {
        try store.sqlite("SELECT url, title, number FROM Bookmark ORDER BY url")
    }

    @Test func aNewObjectAnEditAndADeletionReachTheServerEachWithItsKeyAndETag() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        let made = try await api.push(container)
        #expect(made.sent == 1 && made.failed.isEmpty && made.conflicts.isEmpty)
        var held = try await server.bookmarks()
        #expect(held[key(first)]?["title"] as? String == "A")
        #expect(held[key(first)]?["number"] as? Int == 1)
        // The server's fields are in the row, and the outbox is empty.
        #expect(try rows() == "https://a.example|A|1")
        #expect(try store.sqlite("SELECT createdAt IS NOT NULL FROM Bookmark") == "1")
        #expect(try container.pendingChangeCount() == 0)

        first.title = "A, renamed"
        first.read = true
        try context.save()
        #expect(try await api.push(container).sent == 1)
        held = try await server.bookmarks()
        #expect(held[key(first)]?["title"] as? String == "A, renamed")
        #expect(held[key(first)]?["version"] as? Int == 2)

        context.delete(first)
        try context.save()
        #expect(try await api.push(container).sent == 1)
        #expect(try await server.bookmarks().isEmpty)

        let writes = try await server.writes()
        #expect(writes.map(\.method) == ["POST", "PATCH", "DELETE"])
        #expect(writes.map(\.status) == ["201", "200", "204"])
        // Only what changed, under the model's keys; the local flag is never sent.
        #expect(writes[1].body == #"{"title":"A, renamed"}"#)
        #expect(!writes[0].body.contains("read"))
        #expect(writes.map(\.ifMatch) == [nil, "\"1\"", "\"2\""])
        #expect(Set(writes.compactMap(\.key)).count == 3)
        #expect(try container.pendingChangeCount() == 0)
    }

    @Test func editsMadeBeforeAPushAreSentAsOneRequest() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "one")
        try context.save()
        first.title = "two"
        try context.save()
        first.url = "https://b.example"
        try context.save()
        let dropped = bookmark("https://c.example")
        try context.save()
        context.delete(dropped)
        try context.save()

        let report = try await api.push(container)
        #expect(report.sent == 1 && report.coalesced == 2)
        let writes = try await server.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.method == "POST")
        let held = try await server.bookmarks()
        #expect(held.count == 1)
        #expect(held[key(first)]?["url"] as? String == "https://b.example")
        #expect(held[key(first)]?["title"] as? String == "two")
    }

    @Test func a500ThenA200IsRetriedWithTheSameKeyAndBody() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        try await server.fault("status", status: 500, method: "POST")
        let report = try await api.push(container)
        #expect(report.sent == 1 && report.retried == 1 && report.failed.isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.status) == ["500", "201"])
        #expect(writes[0].key == writes[1].key && writes[0].body == writes[1].body)
        #expect(try await server.bookmarks().count == 1)
        #expect(try rows() == "https://a.example|A|1")
        _ = first
    }

    /// The transport trap: a write the server applied, whose connection then dropped with no
    /// answer. The resend is the same request (key and body), on a connection of its own,
    /// even though a keep-alive connection to the server was open from a fetch before it.
    @Test func aWriteAppliedThenDroppedIsSentAgainWholeAndAppliedOnce() async throws {
        let api = testClient(server)
        // A keep-alive connection to the API, as an app that fetched first has.
        let none = try await api.fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(none.isEmpty)
        _ = bookmark("https://a.example", "A")
        _ = bookmark("https://b.example", "B")
        try context.save()
        try await server.fault("drop", method: "POST")
        try await server.fault("cut", method: "POST")
        let report = try await api.push(container)
        #expect(report.sent == 2 && report.retried == 2 && report.failed.isEmpty)
        // The first POST: applied then dropped, sent again: answered but cut in the middle
        // of the answer, sent again: the first answer once more. Then the second POST.
        let writes = try await server.writes()
        #expect(writes.map(\.status) == ["dropped", "201", "201", "201"])
        #expect(Set(writes.prefix(3).map(\.key)).count == 1 && Set(writes.prefix(3).map(\.body)).count == 1)
        #expect(writes[3].key != writes[0].key)
        #expect(writes.allSatisfy { $0.body.contains("https://") })
        let held = try await server.bookmarks()
        #expect(held.count == 2)
        #expect(try rows() == "https://a.example|A|1\nhttps://b.example|B|2")
        #expect(try container.pendingChangeCount() == 0)
    }

    @Test func aWriteLeftUnansweredIsSentUnchangedByTheNextPush() async throws {
        // No retries: the push ends with the write unanswered, as a crash would leave it.
        let api = testClient(server) { $0.retry = .none }
        let first = bookmark("https://a.example", "A")
        try context.save()
        try await server.fault("drop", method: "POST")
        let lost = try await api.push(container)
        #expect(lost.sent == 0 && lost.failed.count == 1 && lost.waiting == 1)
        // An edit meanwhile is an operation of its own: the first is sent as it was.
        first.title = "A, renamed"
        try context.save()
        #expect(try container.pendingChangeCount() == 2)

        let report = try await testClient(server).push(container)
        #expect(report.sent == 2)
        let writes = try await server.writes()
        #expect(writes.map(\.method) == ["POST", "POST", "PATCH"])
        #expect(writes.map(\.status) == ["dropped", "201", "200"])
        #expect(writes[0].key == writes[1].key && writes[0].body == writes[1].body)
        #expect(writes[1].body.contains(#""title":"A""#))
        let held = try await server.bookmarks()
        #expect(held.count == 1 && held[key(first)]?["title"] as? String == "A, renamed")
        #expect(try rows() == "https://a.example|A, renamed|1")
    }

    @Test func aConcurrentEditIsAConflictTheServerWinsByDefault() async throws {
        let (api, first) = try await editedHereAndThere()

        let report = try await api.push(container)
        #expect(report.sent == 0 && report.conflicts.count == 1 && report.failed.isEmpty)
        let conflict = try #require(report.conflicts.first)
        #expect(conflict.status == 412 && conflict.resolution == .serverWins && conflict.method == "PATCH")
        #expect(String(decoding: conflict.localValues ?? Data(), as: UTF8.self) == #"{"title":"mine"}"#)
        // The row has the server's version; nothing waits.
        #expect(try rows() == "https://a.example|theirs|1")
        #expect(try container.pendingChangeCount() == 0)
        let held = try await server.bookmarks()
        #expect(held[key(first)]?["title"] as? String == "theirs")
        // Its ETag was read back with it: the next edit goes through.
        let fresh = ManagedObjectContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Bookmark>()).first)
        stored.title = "mine, after all"
        try fresh.save()
        #expect(try await api.push(container).sent == 1)
        #expect(try await server.bookmarks()[key(first)]?["title"] as? String == "mine, after all")
    }

    @Test func localWinsSendsTheEditAgainWithoutIfMatch() async throws {
        let (api, first) = try await editedHereAndThere()

        let report = try await api.push(container, conflicts: .custom { _ in .localWins })
        #expect(report.sent == 1 && report.conflicts.map(\.resolution) == [.localWins])
        let writes = try await server.writes()
        #expect(writes.map(\.status) == ["201", "412", "200"])
        #expect(writes[1].ifMatch == "\"1\"" && writes[2].ifMatch == nil && writes[1].key != writes[2].key)
        #expect(try await server.bookmarks()[key(first)]?["title"] as? String == "mine")
        #expect(try rows() == "https://a.example|mine|1")
    }

    @Test func aRefusedValueIsKeptWithTheServersMessageAndTheOthersGoOn() async throws {
        let api = testClient(server)
        let bad = bookmark("not a url", "bad")
        let good = bookmark("https://a.example", "good")
        try context.save()
        let (steps, progress) = AsyncStream.makeStream(of: PushProgress.self)
        let report = try await api.push(container, progress: progress)
        #expect(report.sent == 1 && report.failed.count == 1 && report.waiting == 1)
        var seen: [String] = []
        for await step in steps { seen.append("\(step.done)/\(step.total)") }
        #expect(seen == ["1/2", "2/2"])
        let failure = try #require(report.failed.first)
        #expect(failure.status == 422 && failure.message == "url: is not a URL" && failure.method == "POST")
        #expect(failure.objectID == bad.objectID)
        var held = try await server.bookmarks()
        #expect(held.count == 1 && held[key(good)] != nil)
        // Kept, and sent again by the next push as a new request: refused again.
        #expect(try container.pendingChangeCount() == 1)
        #expect(try await api.push(container).failed.map(\.status) == [422])
        let writes = try await server.writes()
        #expect(writes.map(\.status) == ["422", "201", "422"])
        #expect(writes[0].key != writes[2].key && writes[0].body == writes[2].body)

        bad.url = "https://b.example"
        try context.save()
        #expect(try await api.push(container).sent == 1)
        held = try await server.bookmarks()
        #expect(held.count == 2 && held[key(bad)]?["url"] as? String == "https://b.example")
        #expect(try container.pendingChangeCount() == 0)
    }

    @Test func aFetchBeforeThePushKeepsTheLocalEdit() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        first.title = "local"
        try context.save()

        let fetched = try await api.fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(fetched.count == 1)
        #expect(try rows() == "https://a.example|local|1")
        #expect(first.title == "local")
        #expect(try container.pendingChangeCount() == 1)

        #expect(try await api.push(container).sent == 1)
        #expect(try await server.bookmarks()[key(first)]?["title"] as? String == "local")
    }

    @Test func aSyncDeletesNoObjectTheServerHasNotSeenYet() async throws {
        let api = testClient(server)
        _ = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        let offline = bookmark("https://b.example", "B")
        try context.save()

        let synced = try await api.fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context, deletingMissing: .all)
        #expect(synced.value.count == 1)
        #expect(try rows() == "https://a.example|A|1\nhttps://b.example|B|")
        #expect(try await api.push(container).sent == 1)
        #expect(try await server.bookmarks()[key(offline)]?["title"] as? String == "B")
        #expect(try rows() == "https://a.example|A|1\nhttps://b.example|B|2")
    }

    @Test func aParentIsSentBeforeTheChildrenThatNameIt() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        let folder = PushFolder(context: context)
        folder.name = "Reading"
        first.folder = folder
        try context.save()
        let report = try await api.push(container)
        #expect(report.sent == 2 && report.failed.isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.path) == ["folders", "bookmarks"])
        #expect(writes.map(\.status) == ["201", "201"])
        #expect(writes[1].body.contains(#""folder":"\#(folder.id.uuidString)""#))
        #expect(try await server.bookmarks()[key(first)]?["folder"] as? String == folder.id.uuidString)
    }

    @Test func aChildRefusedForItsParentGoesThroughOnceTheParentHas() async throws {
        let folder = PushFolder(context: context)
        folder.name = "Reading"
        let first = bookmark("https://a.example", "A")
        first.folder = folder
        try context.save()
        // The folder's POST is not answered (a 503, no retries): the bookmark's is refused.
        try await server.fault("status", status: 503, method: "POST")
        let report = try await testClient(server) { $0.retry = .none }.push(container)
        #expect(report.sent == 0 && report.failed.map(\.status) == [503, 422])
        #expect(report.failed.last?.message == "folder: no such folder")
        #expect(try container.pendingChangeCount() == 2)

        let next = try await testClient(server).push(container)
        #expect(next.sent == 2 && next.failed.isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.path) == ["folders", "bookmarks", "folders", "bookmarks"])
        #expect(writes.map(\.status) == ["503", "422", "201", "201"])
        #expect(writes[0].key == writes[2].key && writes[1].key != writes[3].key)
        #expect(try await server.bookmarks()[key(first)]?["folder"] as? String == folder.id.uuidString)
        #expect(try container.pendingChangeCount() == 0)
    }

    /// Found by the crash test: the replayed answer to a POST sent before a crash made the
    /// object again here, after the user had deleted it.
    @Test func anObjectDeletedWhileItsPostWasUnansweredStaysDeleted() async throws {
        let first = bookmark("https://a.example", "A")
        try context.save()
        try await server.fault("drop", method: "POST")
        #expect(try await testClient(server) { $0.retry = .none }.push(container).failed.count == 1)
        context.delete(first)
        try context.save()
        #expect(try container.pendingChangeCount() == 2)

        let report = try await testClient(server).push(container)
        #expect(report.sent == 2 && report.failed.isEmpty)
        #expect(try await server.writes().map(\.method) == ["POST", "POST", "DELETE"])
        #expect(try await server.bookmarks().isEmpty)
        #expect(try rows() == "")
        #expect(try container.pendingChangeCount() == 0)
    }

    @Test func anObjectFetchedAloneKeepsItsETagForTheNextEdit() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        try await server.get("api/_edit?collection=bookmarks&id=\(key(first))&key=title&value=theirs")
        // Fetched alone, with its ETag: the edit made against it goes through.
        let fetched = try await api.fetch(Bookmark.self, from: "api/bookmarks/\(key(first))", into: context)
        #expect(fetched === first && first.title == "theirs")
        first.title = "mine"
        try context.save()
        // A fetch while the edit waits leaves the ETag the edit was made against.
        try await server.get("api/_edit?collection=bookmarks&id=\(key(first))&key=url&value=https://b.example")
        _ = try await api.fetch(Bookmark.self, from: "api/bookmarks/\(key(first))", into: context)
        #expect(try rows() == "https://b.example|mine|1")

        let report = try await api.push(container, conflicts: .localWins)
        #expect(report.sent == 1 && report.conflicts.count == 1)
        let writes = try await server.writes()
        #expect(writes.map(\.ifMatch) == [nil, "\"2\"", nil])
        #expect(writes.map(\.status) == ["201", "412", "200"])
        let held = try await server.bookmarks()[key(first)]
        #expect(held?["title"] as? String == "mine" && held?["url"] as? String == "https://b.example")
    }

    @Test func pushesOfOneStoreAtOnceSendEachOperationOnce() async throws {
        for index in 0..<5 { _ = bookmark("https://example.com/\(index)", "\(index)") }
        try context.save()
        let container = self.container
        let server = self.server
        async let first = testClient(server).push(container)
        async let second = testClient(server).push(container)
        let reports = try await [first, second]
        #expect(reports.map(\.sent).reduce(0, +) == 5)
        let writes = try await server.writes()
        #expect(writes.count == 5 && writes.allSatisfy(\.applied))
        #expect(try await server.bookmarks().count == 5)
    }

    @Test func anObjectAFetchBroughtBackBeforeItsDeletionWasPushedGoesWithIt() async throws {
        let api = testClient(server)
        let first = bookmark("https://a.example", "A")
        try context.save()
        _ = try await api.push(container)
        context.delete(first)
        try context.save()
        // The server still has it: the fetch brings it back here for now.
        _ = try await api.fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try rows() == "https://a.example|A|1")

        let report = try await api.push(container)
        #expect(report.sent == 1)
        #expect(try await server.bookmarks().isEmpty)
        #expect(try rows() == "")
        #expect(try context.fetch(FetchDescriptor<Bookmark>()).isEmpty)
    }

    /// Keys are text a user typed: each is one path segment however it reads. A key ".."
    /// sent as it is was a dot segment, folded into the collection's parent on the way.
    @Test func anyTextKeyNamesItsOwnObject() async throws {
        let api = testClient(server)
        let keys = ["..", ".", "a/b", "x?y=1", "café", "tab\there", "plain"]
        var notes: [String: PushNote] = [:]
        for key in keys {
            let note = PushNote(context: context)
            note.id = key
            note.text = "first"
            notes[key] = note
        }
        try context.save()
        #expect(try await api.push(container).sent == keys.count)
        for key in keys where key != "plain" { notes[key]?.text = "second \(key)" }
        try context.save()
        let edited = try await api.push(container)
        #expect(edited.sent == keys.count - 1 && edited.failed.isEmpty, "\(edited.failed)")
        var held = try await server.objects(of: "notes")
        #expect(Set(held.keys) == Set(keys))
        for key in keys where key != "plain" { #expect(held[key]?["text"] as? String == "second \(key)") }
        #expect(held["plain"]?["text"] as? String == "first")
        context.delete(try #require(notes[".."]))
        try context.save()
        #expect(try await api.push(container).sent == 1)
        held = try await server.objects(of: "notes")
        #expect(Set(held.keys) == Set(keys).subtracting([".."]))
    }
}
