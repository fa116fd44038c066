import Foundation
import Testing

@testable import Stash

/// A remote note named by text the user typed.
final class DroppedNote: ManagedObject, Codable, RemoteModel {
    static let remotePath = "dropped-notes"
    @Attribute(.unique) var name: String
    @Attribute var text: String = ""
}

/// `dropObjectsDeleted(since:)`: before a fetch's save, the new objects that a `DELETE`
/// acknowledged since the fetch's request named are deleted, and only those.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct DroppedDeletedObjectsTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer
    let acknowledgements: OutboxAcknowledgements

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(for: DroppedNote.self, OutboxNote.self, storeURL: directory.file())
        acknowledgements = try #require(container.store as? any OutboxStore).acknowledgements
    }

    func newNotes(_ names: [String], in context: ManagedObjectContext) -> [DroppedNote] {
        names.map { name in
            let note = DroppedNote(context: context)
            note.name = name
            return note
        }
    }

    @Test func onlyTheKeysDeletedSinceTheMarkAndByTheirBytes() throws {
        let watch = acknowledgements.watch()
        acknowledgements.note([("DroppedNote", 1, nil, "before")])
        let mark = watch.mark()
        acknowledgements.note([
            ("DroppedNote", 2, nil, "caf\u{E9}"), ("DroppedNote", 3, ["text"], nil), ("OutboxNote", 4, nil, "other"),
        ])
        let fetch = ManagedObjectContext(container)
        fetch.recordsEdits = false
        let notes = newNotes(["before", "caf\u{E9}", "cafe\u{301}", "other", "kept"], in: fetch)
        #expect(try fetch.dropObjectsDeleted(since: mark) == 1)
        // A new object deleted leaves its context.
        #expect(notes.map { $0.managedObjectContext == nil } == [false, true, false, false, false])
        try fetch.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<DroppedNote>()).map(\.name)
        #expect(
            Set(stored.map { Array($0.utf8) })
                == Set(["before", "cafe\u{301}", "other", "kept"].map { Array($0.utf8) }))
        // A PATCH acknowledged since protects its columns as before; it drops nothing.
        #expect(acknowledgements.entries(since: mark).map(\.rowID) == [3])
        _ = watch
    }

    @Test func aStoredObjectIsNotDropped() throws {
        let seed = ManagedObjectContext(container)
        seed.recordsEdits = false
        _ = newNotes(["held"], in: seed)
        try seed.save()
        let watch = acknowledgements.watch()
        let mark = watch.mark()
        acknowledgements.note([("DroppedNote", 9, nil, "held")])
        let fetch = ManagedObjectContext(container)
        fetch.recordsEdits = false
        let decoded = try fetch.decode(
            [DroppedNote].self, from: Data(#"[{"name": "held", "text": "t"}, {"name": "new"}]"#.utf8))
        // "held" names a stored row (another with the name, made since): updated, not dropped.
        #expect(try fetch.dropObjectsDeleted(since: mark) == 0)
        try fetch.save()
        #expect(decoded.allSatisfy { $0.managedObjectContext === fetch })
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<DroppedNote>()) == 2)
        _ = watch
    }

    @Test func withoutAWatchNothingIsNotedNorDropped() throws {
        acknowledgements.note([("DroppedNote", 2, nil, "gone")])
        let watch = acknowledgements.watch()
        let mark = watch.mark()
        let fetch = ManagedObjectContext(container)
        _ = newNotes(["gone"], in: fetch)
        #expect(try fetch.dropObjectsDeleted(since: mark) == 0)
        #expect(try fetch.dropObjectsDeleted(since: nil) == 0)
        _ = watch
    }
}
