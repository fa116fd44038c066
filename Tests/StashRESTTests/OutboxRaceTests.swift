import Foundation
import PushModels
import Stash
import StashREST
import Synchronization
import Testing

/// Races between a push or a fetch and a save of another context, each made to happen at
/// its worst moment through a hook the app controls (its encoder, its decoder, `willSave`).
// Serialized: tests set `SyncedNote.willSaveDeleted` and `RacedNote.willSaveInserted`, static hooks.
@Suite(.serialized) struct OutboxRaceTests {
    let server: TestServer
    let store: TemporaryStore
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() async throws {
        server = try await TestServer.start()
        store = try TemporaryStore()
        container = try PersistentContainer(
            for: Bookmark.self, PushFolder.self, SyncedNote.self, RacedNote.self, storeURL: store.file)
        context = ManagedObjectContext(container)
    }

    func bookmark(_ url: String, _ title: String = "") -> Bookmark {
        Bookmark.new(in: context, url, title)
    }

    /// Saves a note "gone" as a fetch would (no edit recorded): the server lists it no more.
    func saveAsFetched() throws {
        let seed = ManagedObjectContext(container)
        seed.recordsEdits = false
        let note = SyncedNote(context: seed)
        note.id = "gone"
        note.text = "as fetched"
        try seed.save()
    }

    /// Syncs `api/syncnotes` (which lists no note) while another context saves "mine" into
    /// the note the sync deletes, from that note's `willSave`: inside the sync's own save.
    func syncEditingTheNoteItDeletes() async throws -> FetchResult<[SyncedNote]> {
        let container = self.container
        let once = Once()
        SyncedNote.willSaveDeleted.withLock {
            $0 = { id in
                once.run {
                    let other = ManagedObjectContext(container)
                    let row = try! other.fetch(FetchDescriptor<SyncedNote>()).first { $0.id == id }!
                    row.text = "mine"
                    try! other.save()
                }
            }
        }
        defer { SyncedNote.willSaveDeleted.withLock { $0 = nil } }
        return try await testClient(server).fetchReporting(
            [SyncedNote].self, from: "api/syncnotes", into: context, deletingMissing: .all)
    }

    /// An edit saved, by another context, between the push reading a `PATCH`'s body from the
    /// row and marking it sent: the edit merged into the operation (not sent yet), the push
    /// then marked it sent with the body made before, and its acknowledgement removed it. The
    /// server kept the old title, and the answer put it back into the row: "C" was lost.
    @Test func anEditSavedWhileThePatchBodyIsMadeIsSent() async throws {
        let mark = bookmark("https://a.example", "A")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 1)
        mark.title = "B"
        try context.save()

        let container = self.container
        let once = Once()
        let api = testClient(server) { configuration in
            configuration.makeEncoder = {
                HookedEncoder {
                    once.run { edit(container, url: "https://a.example") { $0.title = "C" } }
                }
            }
        }
        let report = try await api.push(container)
        #expect(report.failed.isEmpty)
        _ = try await testClient(server).push(container)
        #expect(try await server.bookmarks()[mark.id.uuidString]?["title"] as? String == "C")
        #expect(try store.sqlite("SELECT title FROM Bookmark") == "C")
        #expect(try container.pendingChangeCount() == 0)
    }

    /// The push reads every operation first, then sends them one by one. An attribute edited
    /// while an earlier operation was in flight merged into a later `PATCH` (never sent), but
    /// the push sent that `PATCH` with the attributes it had read, then dropped it: the new
    /// URL never reached the server, and the answer put the old one back into the row.
    @Test func anAttributeEditedWhileAnEarlierOperationIsInFlightIsSent() async throws {
        let first = bookmark("https://a.example", "A")
        let second = bookmark("https://b.example", "B")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 2)
        first.title = "A2"
        second.title = "B2"
        try context.save()
        try await server.get("api/_fault?kind=slow&delay=1.5&method=PATCH")
        let container = self.container
        let server = self.server
        async let pushing = testClient(server).push(container)
        try await server.waitForWrites(3)
        second.url = "https://b2.example"
        try context.save()
        let report = try await pushing
        #expect(report.failed.isEmpty)
        _ = try await testClient(server).push(container)
        let held = try await server.bookmarks()[second.id.uuidString]
        #expect(held?["title"] as? String == "B2")
        #expect(held?["url"] as? String == "https://b2.example")
        #expect(
            try store.sqlite("SELECT url FROM Bookmark ORDER BY url") == "https://a.example\nhttps://b2.example")
        #expect(try container.pendingChangeCount() == 0)
    }

    /// A sync read the outbox, deleted the notes the server no longer lists but whose edits
    /// did not wait, then saved. An edit saved in between (here from the sync's own
    /// `willSave`) was deleted with its row, and the push then dropped its `PATCH` in silence
    /// ("the row is gone"): the user never heard of it.
    @Test func aSyncKeepsANoteEditedWhileItSaves() async throws {
        try saveAsFetched()
        #expect(try container.pendingChangeCount() == 0)

        let synced = try await syncEditingTheNoteItDeletes()
        #expect(synced.value.isEmpty)
        // The edit waits, so the note stays, with it.
        #expect(try store.sqlite("SELECT id, text FROM SyncedNote") == "gone|mine")
        #expect(try container.pendingChangeCount() == 1)
        // The server has no such note: the push says so, rather than dropping the edit.
        let report = try await testClient(server).push(container)
        #expect(report.failed.map(\.status) == [404])
    }

    /// A client whose first decode waits for a full push of the container: the answer is in
    /// hand, and the push goes through (to its acknowledgement) before it is decoded and saved.
    func pushingBeforeItsDecode() -> RESTClient {
        server.clientPushingBeforeItsDecode(container)
    }

    /// A list fetched before a push, decoded after the push was acknowledged: the server
    /// answered the old title, the push then sent the new one and its operation left the
    /// outbox, so nothing kept the fetch from writing the old title over the pushed one.
    @Test func aFetchAnsweredBeforeAPushDoesNotUndoItOnceAcknowledged() async throws {
        let mark = bookmark("https://a.example", "A")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 1)
        mark.title = "B"
        try context.save()
        _ = try await pushingBeforeItsDecode().fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try await server.bookmarks()[mark.id.uuidString]?["title"] as? String == "B")
        #expect(try container.pendingChangeCount() == 0)
        #expect(try store.sqlite("SELECT title FROM Bookmark") == "B")
        // A fetch answered after the push brings what the server holds, as ever.
        try await server.get("api/_edit?collection=bookmarks&id=\(mark.id.uuidString)&key=title&value=theirs")
        _ = try await testClient(server).fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try store.sqlite("SELECT title FROM Bookmark") == "theirs")
    }

    /// A list fetched before a push of a deletion, decoded after the push was acknowledged:
    /// the server answered with the bookmark it then deleted, and the fetch made it again
    /// here, where nothing would ever delete it (no operation left, and a plain fetch deletes
    /// nothing).
    @Test func aFetchAnsweredBeforeAPushedDeleteDoesNotBringTheObjectBack() async throws {
        let gone = bookmark("https://gone.example", "gone")
        let kept = bookmark("https://kept.example", "kept")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 2)
        context.delete(gone)
        try context.save()
        let fetched = try await pushingBeforeItsDecode().fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try await server.bookmarks().count == 1)
        #expect(try container.pendingChangeCount() == 0)
        #expect(fetched.value.map(\.url) == [kept.url])
        #expect(fetched.report.inserted == 0)
        #expect(try store.sqlite("SELECT url FROM Bookmark") == "https://kept.example")
        // The next fetch, answered after the push, agrees.
        let next = try await testClient(server).fetch([Bookmark].self, from: "api/bookmarks", into: context)
        #expect(next.map(\.url) == ["https://kept.example"])
        #expect(try store.sqlite("SELECT count(*) FROM Bookmark") == "1")
    }

    /// The same through a sync: the answer lists the deleted bookmark, so the sync's deletion
    /// of what the answer leaves out would not have removed it either.
    @Test func aSyncAnsweredBeforeAPushedDeleteDoesNotBringTheObjectBack() async throws {
        let gone = bookmark("https://gone.example", "gone")
        _ = bookmark("https://kept.example", "kept")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 2)
        context.delete(gone)
        try context.save()
        let synced = try await pushingBeforeItsDecode().fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context, deletingMissing: .all)
        #expect(synced.value.map(\.url) == ["https://kept.example"])
        #expect(synced.report.inserted == 0 && synced.report.deleted == 0)
        #expect(try store.sqlite("SELECT url FROM Bookmark") == "https://kept.example")
        #expect(try context.fetch(FetchDescriptor<Bookmark>()).map(\.url) == ["https://kept.example"])
    }

    /// The object fetched alone, answered at the version before the push: its save kept the
    /// answer's ETag over the push's, and the next edit's `PATCH` carried it: 412, a conflict
    /// the server won, and the edit was lost.
    @Test func anObjectFetchedBeforeAPushKeepsThePushsETag() async throws {
        let mark = bookmark("https://a.example", "A")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 1)
        mark.title = "B"
        try context.save()
        let key = mark.id.uuidString
        _ = try await pushingBeforeItsDecode().fetch(Bookmark.self, from: "api/bookmarks/\(key)", into: context)
        #expect(try store.sqlite("SELECT title FROM Bookmark") == "B")

        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<Bookmark>())[0].title = "C"
        try other.save()
        let report = try await testClient(server).push(container)
        #expect(report.sent == 1 && report.conflicts.isEmpty && report.failed.isEmpty)
        let writes = try await server.writes()
        #expect(writes.map(\.ifMatch) == [nil, "\"1\"", "\"2\""])
        #expect(writes.map(\.status) == ["201", "200", "200"])
        #expect(try await server.bookmarks()[key]?["title"] as? String == "C")
        #expect(try store.sqlite("SELECT title FROM Bookmark") == "C")
    }

    /// A sync whose list was answered before a new object's `POST`: the list does not hold
    /// it, and once acknowledged nothing waited for it, so the sync deleted it here.
    @Test func aSyncAnsweredBeforeAPostKeepsTheNewObject() async throws {
        let mark = bookmark("https://a.example", "A")
        try context.save()
        let synced = try await pushingBeforeItsDecode().fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context, deletingMissing: .all)
        #expect(synced.value.isEmpty)
        #expect(try await server.bookmarks()[mark.id.uuidString]?["title"] as? String == "A")
        #expect(try container.pendingChangeCount() == 0)
        #expect(try store.sqlite("SELECT url, title FROM Bookmark") == "https://a.example|A")
        // The next sync, answered after the push, lists it.
        let next = try await testClient(server).fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context, deletingMissing: .all)
        #expect(next.value.map(\.url) == ["https://a.example"])
    }

    /// Page 1 saved, then (while page 2 decoded) another context edited an item of page 1,
    /// then page 2 saved and the validators were written: page 1's record took the local
    /// edit for what the server sent. The next fetch's 304 stood for it, and the edit, which
    /// a full answer undoes, stayed.
    @Test func anEditCommittedBetweenAPagesSaveAndItsRecordIsUndoneByTheNextFetch() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let container = context.container
        let calls = CallCounter()
        let api = testClient(server) { configuration in
            configuration.makeDecoder = {
                // Page 2's decoder: page 1 is saved, its record not written yet.
                if calls.next() == 2 {
                    let other = ManagedObjectContext(container)
                    try! other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 1 }))[0].title = "mine"
                    try! other.save()
                }
                return RESTConfiguration.defaultDecoder()
            }
        }
        var options = FetchOptions()
        options.saving = .perPage
        let path = "paged/a?pages=2&per_page=2"
        let first = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(first.report.inserted == 4)
        #expect(try store.sqlite("SELECT title FROM Item WHERE id = 1") == "mine")

        _ = try await testClient(server).fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(try store.sqlite("SELECT title FROM Item WHERE id = 1") == "Item 1")
    }
}

// MARK: Review: deletes a save that records no edits drops

extension OutboxRaceTests {
    /// A context that records no edits (`recordsEdits = false`, public) deletes a note whose
    /// POST waits. The store keeps the row (3845102), yet the save succeeds and reports the
    /// deletion: the deleting context lets go of the object and every merging context marks
    /// its object's row gone, so the user's next edit of the note (row still there) fails
    /// with `rowMissing`.
    @Test func aDeleteTheStoreKeepsIsNotReportedAsDone() async throws {
        let note = SyncedNote(context: context)
        note.id = "n"
        note.text = "mine"
        try context.save()
        #expect(try container.pendingChangeCount() == 1)

        let other = ManagedObjectContext(container)
        other.recordsEdits = false
        let copy = try other.fetch(FetchDescriptor<SyncedNote>())[0]
        other.delete(copy)
        try other.save()

        // The store keeps the row (its POST waits), and the delete does not pass for done.
        #expect(try store.sqlite("SELECT count(*) FROM SyncedNote") == "1")
        #expect(copy.managedObjectContext === other && !copy.isDeleted)
        #expect(try other.fetch(FetchDescriptor<SyncedNote>()).first === copy)
        note.text = "mine again"
        #expect(throws: Never.self) { try context.save() }
        #expect(try store.sqlite("SELECT text FROM SyncedNote") == "mine again")
    }

    /// The race of `aSyncKeepsANoteEditedWhileItSaves`, seen from the context the user
    /// edits in: the sync's save kept the note but its change notification said deleted, and
    /// the user's context marked its note's row gone.
    @Test func aNoteASyncKeptStaysInTheUsersContext() async throws {
        try saveAsFetched()
        let user = ManagedObjectContext(container)
        let held = try user.fetch(FetchDescriptor<SyncedNote>())[0]

        let synced = try await syncEditingTheNoteItDeletes()
        #expect(try store.sqlite("SELECT id, text FROM SyncedNote") == "gone|mine")
        #expect(synced.report.deleted == 0)
        #expect(try user.fetch(FetchDescriptor<SyncedNote>()).first === held)
        #expect(held.text == "mine")
        held.text = "mine, later"
        #expect(throws: Never.self) { try user.save() }
        #expect(try store.sqlite("SELECT text FROM SyncedNote") == "mine, later")
    }
}

/// A note of the test API (`api/syncnotes`), with a hook run when a save deletes one.
final class SyncedNote: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/syncnotes"
    static let willSaveDeleted = Mutex<(@Sendable (String) -> Void)?>(nil)
    @Attribute(.unique) var id: String = ""
    @Attribute var text: String = ""

    override func willSave() {
        guard isDeleted, let hook = Self.willSaveDeleted.withLock({ $0 }) else { return }
        hook(id)
    }
}

/// Edits the bookmark at `url` in a context of its own and saves it.
private func edit(_ container: PersistentContainer, url: String, _ change: (Bookmark) -> Void) {
    let other = ManagedObjectContext(container)
    let row = try! other.fetch(FetchDescriptor<Bookmark>()).first { $0.url == url }!
    change(row)
    try! other.save()
}

/// The client's encoder, which runs `hook` once it has encoded a body.
private final class HookedEncoder: JSONEncoder, @unchecked Sendable {
    let hook: @Sendable () -> Void

    init(_ hook: @escaping @Sendable () -> Void) {
        self.hook = hook
        super.init()
        let made = RESTConfiguration.defaultEncoder()
        dateEncodingStrategy = made.dateEncodingStrategy
    }

    override func encode<T: Encodable>(_ value: T) throws -> Data {
        let data = try super.encode(value)
        hook()
        return data
    }
}

extension OutboxRaceTests {
    /// Another context's save of another entity while the items decode, a new row or a change
    /// to a stored one, touches no row of the fetched pages: the import keeps its validators,
    /// and the next fetch of the same URL is a 304. (Any save of any entity dropped them once,
    /// so two collections synced side by side never got a 304.)
    @Test(arguments: ["insert", "update"])
    func aSaveOfAnotherEntityDuringAnImportKeepsItsValidators(_ kind: String) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let container = context.container
        let seed = ManagedObjectContext(container)
        let stored = HandNote(context: seed)
        stored.id = 7
        stored.title = "stored"
        try seed.save()
        let calls = CallCounter()
        let api = testClient(server) { configuration in
            configuration.makeDecoder = {
                if calls.next() == 1 {
                    let other = ManagedObjectContext(container)
                    if kind == "insert" {
                        let note = HandNote(context: other)
                        note.id = 1
                        note.title = "unrelated"
                    } else {
                        try! other.fetch(FetchDescriptor<HandNote>())[0].title = "changed"
                    }
                    try! other.save()
                }
                return RESTConfiguration.defaultDecoder()
            }
        }
        let first = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(first.report.inserted == 3)
        let second = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(second.report.notModified)
        let notes = kind == "insert" ? "1|unrelated\n7|stored" : "7|changed"
        #expect(try store.sqlite("SELECT id, title FROM HandNote ORDER BY id") == notes)
    }
}
