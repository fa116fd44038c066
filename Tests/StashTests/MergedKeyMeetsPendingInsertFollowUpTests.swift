import Foundation
import Observation
import Testing

@testable import Stash

/// A remote feed with a unique address, for the outbox side of a stand-in after a save.
final class StandInRemoteFeed: ManagedObject, Codable, RemoteModel {
    static let remotePath = "feeds"
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""
}

/// A feed whose unique address is kept precomposed.
final class PrecomposedFeed: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.precomposed]) var url: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""
}

/// After an insert stood in for a row's object at save (`MergedKeyMeetsPendingInsertTests`):
/// rollback, what observers see, the outbox, look-alike values and a reopened store.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct MergedKeyMeetsPendingInsertFollowUpTests {
    struct Scene {
        let directory: TemporaryDirectory
        let container: PersistentContainer
        let context: ManagedObjectContext
        let x: MovedKeyFeed
        let y: MovedKeyFeed
    }

    func scene(
        policy: MergePolicy = .incomingWins, merging: Bool = true, from: String = "a", to: String = "b",
        yURL: String = "b"
    ) throws -> Scene {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: MovedKeyFeed.self, MovedKeyFolder.self, storeURL: directory.file())
        let seed = ManagedObjectContext(container)
        let row = MovedKeyFeed(context: seed)
        row.url = from
        row.title = "A"
        row.note = "stored note"
        try seed.save()
        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        context.automaticallyMergesChanges = merging
        let x = try context.fetch(FetchDescriptor<MovedKeyFeed>())[0]
        let y = MovedKeyFeed(context: context)
        y.url = yURL
        y.title = "mine"
        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<MovedKeyFeed>())[0].url = to
        try other.save()
        return Scene(directory: directory, container: container, context: context, x: x, y: y)
    }

    func rows(_ container: PersistentContainer) throws -> [String] {
        try ManagedObjectContext(container).fetch(FetchDescriptor<MovedKeyFeed>())
            .map { "\($0.url)|\($0.title)|\($0.note)" }.sorted()
    }

    // MARK: 1 rollback

    @Test(arguments: [true, false]) func rollbackRightAfterTheSaveChangesNothing(merging: Bool) throws {
        let s = try scene(merging: merging)
        try s.context.save()
        s.context.rollback()
        #expect(!s.context.hasChanges)
        #expect(s.x.url == "b" && s.x.title == "mine" && s.x.note == "stored note")
        #expect(s.y.url == "b" && s.y.title == "mine" && s.y.note == "stored note")
        #expect(s.y.objectID == s.x.objectID)
        let fetched = try s.context.fetch(FetchDescriptor<MovedKeyFeed>())
        #expect(fetched.count == 1 && fetched.first === s.x)
        try s.context.save()
        #expect(try rows(s.container) == ["b|mine|stored note"])
    }

    @Test(arguments: [true, false]) func anEditThroughTheStandInIsRolledBack(merging: Bool) throws {
        let s = try scene(merging: merging)
        try s.context.save()
        s.y.title = "unsaved"
        s.y.url = "c"
        #expect(s.context.hasChanges)
        #expect(s.x.title == "unsaved" && s.x.url == "c")
        s.context.rollback()
        #expect(!s.context.hasChanges)
        #expect(s.x.title == "mine" && s.x.url == "b")
        #expect(s.y.title == "mine" && s.y.url == "b")
        #expect(
            try s.context.fetch(FetchDescriptor<MovedKeyFeed>(predicate: #Predicate { $0.url == "b" })).first === s.x)
        #expect(try s.context.fetch(FetchDescriptor<MovedKeyFeed>(predicate: #Predicate { $0.url == "c" })).isEmpty)
        // A new object with the row's value stands in for it; one with the rolled-back value is new.
        let z = MovedKeyFeed(context: s.context)
        z.url = "b"
        #expect(z.objectID == s.x.objectID && !z.isInserted)
        let w = MovedKeyFeed(context: s.context)
        w.url = "c"
        #expect(w.isInserted)
        try s.context.save()
        #expect(try rows(s.container) == ["b|mine|stored note", "c||"])
    }

    @Test(arguments: [true, false]) func anEditThroughTheHolderIsRolledBack(merging: Bool) throws {
        let s = try scene(merging: merging)
        try s.context.save()
        s.x.note = "unsaved"
        s.x.title = "unsaved"
        #expect(s.y.note == "unsaved")
        s.context.rollback()
        #expect(s.y.note == "stored note" && s.y.title == "mine")
        #expect(s.x.note == "stored note" && s.x.title == "mine")
        #expect(!s.context.hasChanges)
        try s.context.save()
        #expect(try rows(s.container) == ["b|mine|stored note"])
    }

    @Test(arguments: [true, false]) func aDeleteThroughTheStandInIsRolledBackThenSaved(merging: Bool) throws {
        let s = try scene(merging: merging)
        try s.context.save()
        s.context.delete(s.y)
        #expect(s.x.isDeleted && s.y.isDeleted)
        s.context.rollback()
        #expect(!s.x.isDeleted && !s.y.isDeleted)
        #expect(!s.context.hasChanges)
        #expect(try s.context.fetch(FetchDescriptor<MovedKeyFeed>()).count == 1)
        s.context.delete(s.y)
        try s.context.save()
        #expect(try rows(s.container).isEmpty)
        #expect(try s.context.fetch(FetchDescriptor<MovedKeyFeed>()).isEmpty)
    }

    @Test func withoutMergingTheOldValueIsFreeAfterTheSave() throws {
        let s = try scene(merging: false)
        try s.context.save()
        let z = MovedKeyFeed(context: s.context)
        z.url = "a"
        z.title = "z"
        #expect(z.isInserted && z.objectID != s.x.objectID)
        try s.context.save()
        #expect(try rows(s.container) == ["a|z|", "b|mine|stored note"])
        #expect(s.x.url == "b")
    }

    /// A later edit through the stand-in is saved to the row it stands in for.
    @Test func aLaterEditThroughTheStandInIsSavedToItsRow() throws {
        let s = try scene()
        try s.context.save()
        s.y.title = "later"
        try s.context.save()
        #expect(try rows(s.container) == ["b|later|stored note"])
    }

    // MARK: 2 observation

    @Test func theSavesChangeSetListsAnUpdateNotAnInsert() throws {
        let s = try scene()
        let changes = try s.context.saveChanges()
        #expect(changes.inserted.isEmpty)
        #expect(changes.updated == [s.x.objectID])
        #expect(changes.deleted.isEmpty)
    }

    @Test func theContainersChangesListAnUpdateNotAnInsert() async throws {
        let s = try scene()
        var iterator = s.container.changes.makeAsyncIterator()
        try s.context.save()
        let change = await iterator.next()
        #expect(change?.inserted.isEmpty == true)
        #expect(change?.updated == [s.x.objectID])
        #expect(change?.deleted.isEmpty == true)
    }

    @Test func anObservedFetchDeliversOneObject() async throws {
        let s = try scene()
        var iterator = s.context.observe(FetchDescriptor<MovedKeyFeed>()).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.count == 2)
        try s.context.save()
        let second = try await iterator.next()
        #expect(second?.count == 1 && second?.first === s.x)
    }

    @Test func observationSeesTheHoldersNewValue() throws {
        let s = try scene()
        s.context.observesObjects = true
        let fired = Locked(0)
        withObservationTracking {
            _ = s.x.title
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        try s.context.save()
        #expect(fired.withLock { $0 } == 1)
    }

    @Test func observationOfTheStandInSeesALaterEditOfTheHolder() throws {
        let s = try scene()
        s.context.observesObjects = true
        try s.context.save()
        let fired = Locked(0)
        withObservationTracking {
            _ = s.y.title
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        s.x.title = "later"
        #expect(fired.withLock { $0 } == 1)
    }

    // MARK: 3 outbox

    struct RemoteScene {
        let directory: TemporaryDirectory
        let container: PersistentContainer
        let context: ManagedObjectContext
        let x: StandInRemoteFeed
        let y: StandInRemoteFeed
    }

    func remoteScene(policy: MergePolicy = .incomingWins, merging: Bool = true, yTitle: String = "mine") throws
        -> RemoteScene
    {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: StandInRemoteFeed.self, storeURL: directory.file())
        let seed = ManagedObjectContext(container)
        let row = StandInRemoteFeed(context: seed)
        row.url = "a"
        row.title = "A"
        row.note = "stored note"
        try seed.save()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        context.automaticallyMergesChanges = merging
        let x = try context.fetch(FetchDescriptor<StandInRemoteFeed>())[0]
        let y = StandInRemoteFeed(context: context)
        y.url = "b"
        y.title = yTitle
        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<StandInRemoteFeed>())[0].url = "b"
        try other.save()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        return RemoteScene(directory: directory, container: container, context: context, x: x, y: y)
    }

    func outbox(_ directory: TemporaryDirectory) throws -> String {
        try sqliteShell(
            directory.file(),
            "SELECT \"method\", \"row\", \"attributes\", \"key\" FROM \"_stash_outbox\" ORDER BY \"sequence\"")
    }

    @Test(arguments: [true, false]) func theOutboxRecordsOnePatchForTheRow(merging: Bool) throws {
        let s = try remoteScene(merging: merging)
        try s.context.save()
        #expect(try outbox(s.directory) == "PATCH|1|title|b\n")
        s.y.note = "through Y"
        try s.context.save()
        #expect(try outbox(s.directory) == "PATCH|1|title,note|b\n")
        s.x.note = "through X"
        try s.context.save()
        #expect(try outbox(s.directory) == "PATCH|1|title,note|b\n")
        s.context.delete(s.y)
        try s.context.save()
        #expect(try outbox(s.directory) == "DELETE|1||b\n")
    }

    /// `.storedWins` keeps the row's values: the save changed nothing, so nothing is sent. It
    /// recorded a `PATCH` of the title the insert was given, which a push sent with the row's
    /// title, one the user never changed, over the server's.
    @Test func underStoredWinsTheOutboxRecordsNothingForTheUnchangedRow() throws {
        let s = try remoteScene(policy: .storedWins)
        try s.context.save()
        #expect(
            try sqliteShell(s.directory.file(), "SELECT url, title, note FROM StandInRemoteFeed") == "b|A|stored note\n"
        )
        #expect(try outbox(s.directory) == "")
    }

    @Test func aRollbackAfterTheSaveRecordsNothingMore() throws {
        let s = try remoteScene()
        try s.context.save()
        let before = try outbox(s.directory)
        s.y.note = "unsaved"
        s.context.rollback()
        try s.context.save()
        #expect(try outbox(s.directory) == before)
    }

    // MARK: 4 unicode

    @Test(arguments: [
        ("e\u{301}", "\u{e9}"), ("\u{e9}", "e\u{301}"), ("\u{430}", "a"), ("a", "\u{430}"),
    ])
    func lookAlikeValuesStayTwoRows(values: (String, String)) throws {
        for merging in [true, false] {
            let s = try scene(merging: merging, from: "x", to: values.1, yURL: values.0)
            try s.context.save()
            #expect(s.y.isInserted == false)
            #expect(s.y.objectID != s.x.objectID)
            let fetched = try s.context.fetch(FetchDescriptor<MovedKeyFeed>())
            #expect(fetched.count == 2)
            let stored = try ManagedObjectContext(s.container).fetch(FetchDescriptor<MovedKeyFeed>())
            #expect(stored.count == 2)
            #expect(Set(stored.map { Array($0.url.utf8) }) == [Array(values.0.utf8), Array(values.1.utf8)])
            let titles = stored.map { "\($0.title)|\($0.note)" }.sorted()
            #expect(titles == ["A|stored note", "mine|"])
            #expect(s.x.title == "A")
            #expect(Array(s.x.url.utf8) == Array((merging ? values.1 : "x").utf8))
        }
    }

    @Test func aPrecomposedModelMakesTheLookAlikesOneRow() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: PrecomposedFeed.self, storeURL: directory.file())
        let seed = ManagedObjectContext(container)
        let row = PrecomposedFeed(context: seed)
        row.url = "x"
        row.title = "A"
        row.note = "stored note"
        try seed.save()
        let context = ManagedObjectContext(container)
        let x = try context.fetch(FetchDescriptor<PrecomposedFeed>())[0]
        let y = PrecomposedFeed(context: context)
        y.url = "e\u{301}"
        y.title = "mine"
        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<PrecomposedFeed>())[0].url = "\u{e9}"
        try other.save()
        try context.save()
        #expect(y.objectID == x.objectID)
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<PrecomposedFeed>())
        #expect(stored.map { "\($0.url)|\($0.title)|\($0.note)" } == ["\u{e9}|mine|stored note"])
        #expect(Array(x.url.utf8) == Array("\u{e9}".utf8))
    }

    // MARK: 5 reopened store

    @Test(arguments: [true, false]) func aReopenedStoreHasOneRow(merging: Bool) throws {
        let s = try scene(merging: merging)
        try s.context.save()
        let reopened = try testContainer(for: MovedKeyFeed.self, MovedKeyFolder.self, storeURL: s.directory.file())
        #expect(try rows(reopened) == ["b|mine|stored note"])
        s.y.title = "through Y"
        try s.context.save()
        let again = try testContainer(for: MovedKeyFeed.self, MovedKeyFolder.self, storeURL: s.directory.file())
        #expect(try rows(again) == ["b|through Y|stored note"])
        let context = ManagedObjectContext(again)
        let only = try context.fetch(FetchDescriptor<MovedKeyFeed>())
        #expect(only.count == 1)
        let n = MovedKeyFeed(context: context)
        n.url = "b"
        n.note = "new"
        try context.save()
        #expect(try rows(again) == ["b|through Y|new"])
    }

    @Test func aReopenedRemoteStoreKeepsOnePatch() throws {
        let s = try remoteScene()
        try s.context.save()
        let reopened = try testContainer(for: StandInRemoteFeed.self, storeURL: s.directory.file())
        let operations = try reopened.outboxOperations()
        #expect(operations.map(\.method) == [.patch])
        #expect(operations.map(\.rowID) == [1])
        #expect(try ManagedObjectContext(reopened).fetch(FetchDescriptor<StandInRemoteFeed>()).map(\.title) == ["mine"])
    }
}
