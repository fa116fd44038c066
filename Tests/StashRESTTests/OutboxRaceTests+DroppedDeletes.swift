import Foundation
import PushModels
import Stash
import StashREST
import Synchronization
import Testing

// MARK: A fetch answered before a pushed `DELETE`, decoded (or saved) after the push was
// acknowledged: what it makes again, counts and hands back.

extension OutboxRaceTests {
    /// The answer names a bookmark the push deleted and, by reference, its folder, which the
    /// push deleted too: both are left out, but only the bookmark is one of the fetched
    /// objects. The other bookmark, stored and unchanged, must count as unchanged.
    @Test func aDroppedNestedObjectIsNotTakenOffTheFetchedObjectsCount() async throws {
        let folder = PushFolder(context: context)
        folder.name = "f"
        let gone = Bookmark.new(in: context, "https://gone.example", "gone")
        gone.folder = folder
        let kept = Bookmark.new(in: context, "https://kept.example", "kept")
        try context.save()
        #expect(try await testClient(server).push(container).sent == 3)
        context.delete(gone)
        context.delete(folder)
        try context.save()
        let fetched = try await pushingBeforeItsDecode().fetchReporting(
            [Bookmark].self, from: "api/bookmarks", into: context)
        #expect(try container.pendingChangeCount() == 0)
        #expect(try store.sqlite("SELECT count(*) FROM PushFolder") == "0")
        #expect(fetched.value.map(\.url) == [kept.url])
        #expect(fetched.report.inserted == 0)
        #expect(fetched.report.updated == 0)
        #expect(fetched.report.unchanged == 1)
    }

    /// The `DELETE` acknowledged after the fetch left out what it named, but before its save
    /// wrote the answer (here from the save's own `willSave`): the note was made again, for
    /// good, as before the fix.
    @Test func aDeleteAcknowledgedWhileTheFetchSavesDoesNotBringTheObjectBack() async throws {
        for id in ["gone", "kept"] {
            let note = RacedNote(context: context)
            note.id = id
        }
        try context.save()
        #expect(try await testClient(server).push(container).sent == 2)
        context.delete(try #require(try context.fetch(FetchDescriptor<RacedNote>()).first { $0.id == "gone" }))
        try context.save()
        let container = self.container
        let server = self.server
        let once = Once()
        RacedNote.willSaveInserted.withLock {
            $0 = { once.run { server.pushBlocking(container) } }
        }
        defer { RacedNote.willSaveInserted.withLock { $0 = nil } }
        let fetched = try await testClient(server).fetch([RacedNote].self, from: "api/racednotes", into: context)
        #expect(try await server.objects(of: "racednotes").keys.sorted() == ["kept"])
        #expect(try container.pendingChangeCount() == 0)
        #expect(fetched.map(\.id) == ["kept"])
        #expect(try store.sqlite("SELECT id FROM RacedNote") == "kept")
    }
}

/// A note of the test API (`api/racednotes`), with a hook run when a save inserts one.
final class RacedNote: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/racednotes"
    static let willSaveInserted = Mutex<(@Sendable () -> Void)?>(nil)
    @Attribute(.unique) var id: String = ""
    @Attribute var text: String = ""

    override func willSave() {
        guard isInserted, let hook = Self.willSaveInserted.withLock({ $0 }) else { return }
        hook()
    }
}
