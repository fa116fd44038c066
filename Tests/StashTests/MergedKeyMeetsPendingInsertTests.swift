import Foundation
import Testing

@testable import Stash

/// A feed with a unique address, a title a new object is given and a note it is not.
final class MovedKeyFeed: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""
    @Relationship var folder: MovedKeyFolder?
}

final class MovedKeyFolder: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \MovedKeyFeed.folder) var feeds: [MovedKeyFeed]
}

/// A feed with two unique attributes, either of which may be unset.
final class TwoKeyFeed: ManagedObject, Decodable {
    @Attribute(.unique) var url: String?
    @Attribute(.unique) var slug: String?
    @Attribute var title: String = ""
    @Attribute var note: String = ""
}

/// The same, unique by two attributes together.
final class MovedKeyEntry: ManagedObject, Decodable, CompositeUniqueModel {
    @Attribute var feed: String
    @Attribute var guid: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""

    static var uniqueConstraints: [[PartialKeyPath<MovedKeyEntry>]] { [[\.feed, \.guid]] }
}

/// A context holds a fetched object X (row 1, url "a") and a new object Y (url "b", not
/// saved). Another context moves row 1 to "b". The context's save upserts Y onto row 1
/// (the store finds the row by "b"): after it, the context must still have one object for
/// row 1, with Y standing in for X, not two objects that overwrite each other's edits.
@Suite(.bothStores) struct MergedKeyMeetsPendingInsertTests {
    struct Scene {
        let container: PersistentContainer
        let context: ManagedObjectContext
        let x: MovedKeyFeed
        let y: MovedKeyFeed
    }

    /// Row 1 ("a", "A", "stored note") fetched as X; Y new with url "b" and title "mine".
    /// With `moveRow`, another context then moves row 1 to "b" and saves.
    func scene(
        in directory: TemporaryDirectory, policy: MergePolicy = .incomingWins, merging: Bool = true,
        decodeY: Bool = false, moveRow: Bool = true
    ) throws -> Scene {
        let container = try testContainer(for: MovedKeyFeed.self, MovedKeyFolder.self, storeURL: directory.file())
        let seed = ManagedObjectContext(container)
        let row = MovedKeyFeed(context: seed)
        row.url = "a"
        row.title = "A"
        row.note = "stored note"
        try seed.save()

        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        context.automaticallyMergesChanges = merging
        let x = try context.fetch(FetchDescriptor<MovedKeyFeed>())[0]
        let y: MovedKeyFeed
        if decodeY {
            y = try context.decode(MovedKeyFeed.self, from: json(#"{"url": "b", "title": "mine"}"#))
        } else {
            y = MovedKeyFeed(context: context)
            y.url = "b"
            y.title = "mine"
        }
        #expect(y.isInserted && y !== x)

        if moveRow {
            let other = ManagedObjectContext(container)
            let theirs = try other.fetch(FetchDescriptor<MovedKeyFeed>())[0]
            theirs.url = "b"
            try other.save()
        }
        return Scene(container: container, context: context, x: x, y: y)
    }

    /// Every row, as a new context reads it.
    func rows(_ container: PersistentContainer) throws -> [String] {
        try ManagedObjectContext(container).fetch(FetchDescriptor<MovedKeyFeed>())
            .map { "\($0.url)|\($0.title)|\($0.note)" }.sorted()
    }

    /// After the save: one object for row 1 (X), Y standing in for it, reading `title`; then
    /// an edit through each reaches the other and the row, and neither undoes the other's.
    func expectOneObject(_ scene: Scene, title: String) throws {
        let (context, x, y) = (scene.context, scene.x, scene.y)
        let fetched = try context.fetch(FetchDescriptor<MovedKeyFeed>())
        #expect(fetched.count == 1)
        #expect(fetched.first === x)
        #expect(try context.fetch(FetchDescriptor<MovedKeyFeed>(predicate: #Predicate { $0.url == "b" })).first === x)
        #expect(y.objectID == x.objectID)
        #expect(!y.isInserted)
        #expect(!context.hasChanges)
        #expect(x.url == "b" && x.title == title && x.note == "stored note")
        #expect(y.url == "b" && y.title == title && y.note == "stored note")
        #expect(try rows(scene.container) == ["b|\(title)|stored note"])

        y.title = "through Y"
        try context.save()
        #expect(x.title == "through Y")
        #expect(try rows(scene.container) == ["b|through Y|stored note"])

        x.note = "through X"
        try context.save()
        #expect(y.note == "through X" && y.title == "through Y")
        #expect(try rows(scene.container) == ["b|through Y|through X"])
        #expect(!context.hasChanges)
    }

    @Test func aMergedKeyOnAPendingInsertLeavesOneObjectUnderIncomingWins() throws {
        let scene = try scene(in: try TemporaryDirectory())
        try scene.context.save()
        try expectOneObject(scene, title: "mine")
    }

    /// `.overwrite` writes a changed object whole: a second object for the row, with the
    /// title it had before the upsert, wrote that title back over Y's.
    @Test func aMergedKeyOnAPendingInsertLeavesOneObjectUnderOverwrite() throws {
        let scene = try scene(in: try TemporaryDirectory(), policy: .overwrite)
        try scene.context.save()
        try expectOneObject(scene, title: "mine")
    }

    /// `.storedWins`: the row keeps its values, and Y reads them.
    @Test func aMergedKeyOnAPendingInsertLeavesOneObjectUnderStoredWins() throws {
        let scene = try scene(in: try TemporaryDirectory(), policy: .storedWins)
        try scene.context.save()
        try expectOneObject(scene, title: "A")
    }

    /// A decoded object is given only the keys of its payload: the note stays the row's.
    @Test func aDecodedObjectUpsertedOntoAMergedRowStandsInForItsObject() throws {
        let scene = try scene(in: try TemporaryDirectory(), decodeY: true)
        try scene.context.save()
        try expectOneObject(scene, title: "mine")
    }

    /// A context that does not merge other saves still saved Y onto row 1: X is that row's
    /// object, and takes what the save left in it.
    @Test func withoutMergingTheRowsObjectTakesWhatTheUpsertWrote() throws {
        let scene = try scene(in: try TemporaryDirectory(), merging: false)
        #expect(scene.x.url == "a")
        try scene.context.save()
        try expectOneObject(scene, title: "mine")
    }

    /// The same key set here, on X, while Y holds it: the save writes X's row, then
    /// upserts Y onto it.
    @Test func aKeyMovedHereOntoAPendingInsertLeavesOneObject() throws {
        let scene = try scene(in: try TemporaryDirectory(), moveRow: false)
        scene.x.url = "b"
        try scene.context.save()
        try expectOneObject(scene, title: "mine")
    }

    /// `.fail`: the save fails and leaves both objects as they were.
    @Test func underFailTheSaveFailsAndLeavesBothObjects() throws {
        let scene = try scene(in: try TemporaryDirectory(), policy: .fail)
        #expect {
            try scene.context.save()
        } throws: { error in
            (error as? StashError)?.code == .uniqueConflict
        }
        #expect(scene.y.isInserted && scene.y.title == "mine")
        #expect(scene.x.url == "b" && scene.x.title == "A")
        #expect(scene.context.hasChanges)
        #expect(try rows(scene.container) == ["b|A|stored note"])
    }

    /// Composite keys: the save asks the store again for each new object's key, and Y stands
    /// in for X before anything is written.
    @Test func aMergedCompositeKeyOnAPendingInsertLeavesOneObject() throws {
        let container = try testContainer(for: MovedKeyEntry.self, storeURL: try TemporaryDirectory().file())
        let seed = ManagedObjectContext(container)
        let row = MovedKeyEntry(context: seed)
        row.feed = "f"
        row.guid = "a"
        row.title = "A"
        row.note = "stored note"
        try seed.save()

        let context = ManagedObjectContext(container)
        let x = try context.fetch(FetchDescriptor<MovedKeyEntry>())[0]
        let y = MovedKeyEntry(context: context)
        y.feed = "f"
        y.guid = "b"
        y.title = "mine"

        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<MovedKeyEntry>())[0].guid = "b"
        try other.save()

        try context.save()
        let fetched = try context.fetch(FetchDescriptor<MovedKeyEntry>())
        #expect(fetched.count == 1 && fetched.first === x)
        #expect(y.objectID == x.objectID)
        #expect(x.guid == "b" && x.title == "mine" && x.note == "stored note")
        y.note = "through Y"
        try context.save()
        #expect(x.note == "through Y")
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<MovedKeyEntry>())
        #expect(stored.map { "\($0.feed)|\($0.guid)|\($0.title)|\($0.note)" } == ["f|b|mine|through Y"])
    }

    /// Y set into a folder's list: after the save the list holds the row's one object.
    @Test func aListThatHeldTheUpsertedObjectHoldsTheRowsObject() throws {
        let scene = try scene(in: try TemporaryDirectory(), moveRow: false)
        let context = scene.context
        let seed = ManagedObjectContext(scene.container)
        MovedKeyFolder(context: seed).name = "f"
        try seed.save()
        let folder = try context.fetch(FetchDescriptor<MovedKeyFolder>())[0]
        #expect(folder.feeds.isEmpty)
        scene.y.folder = folder
        #expect(folder.feeds.count == 1 && folder.feeds.first === scene.y)
        let other = ManagedObjectContext(scene.container)
        try other.fetch(FetchDescriptor<MovedKeyFeed>())[0].url = "b"
        try other.save()

        try context.save()
        #expect(folder.feeds.count == 1 && folder.feeds.first === scene.x)
        #expect(scene.x.folder === folder && scene.y.folder === folder)
        let fresh = ManagedObjectContext(scene.container)
        let stored = try fresh.fetch(FetchDescriptor<MovedKeyFeed>())
        #expect(stored.map(\.url) == ["b"] && stored.map { $0.folder?.name } == ["f"])
    }

    /// Two new objects, each with one of a row's two unique values, which another context
    /// saved after both were inserted: the store matches both to that row (one by each
    /// value), and the second stands in for the first, which reads what the row holds.
    @Test func twoInsertsMatchingOneRowByDifferentKeysLeaveOneObjectForIt() throws {
        let container = try testContainer(for: TwoKeyFeed.self, storeURL: try TemporaryDirectory().file())
        let context = ManagedObjectContext(container)
        let first = TwoKeyFeed(context: context)
        first.url = "a"
        first.title = "first"
        let second = TwoKeyFeed(context: context)
        second.slug = "s"
        second.note = "second"

        let other = ManagedObjectContext(container)
        let theirs = TwoKeyFeed(context: other)
        theirs.url = "a"
        theirs.slug = "s"
        theirs.title = "theirs"
        theirs.note = "theirs"
        try other.save()

        try context.save()
        let fetched = try context.fetch(FetchDescriptor<TwoKeyFeed>())
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<TwoKeyFeed>())
        #expect(stored.count == 1 && fetched.count == 1)
        #expect(fetched.first === first && second.resolved === first)
        let rows = stored.map { "\($0.url ?? "-")|\($0.slug ?? "-")|\($0.title)|\($0.note)" }.sorted()
        let objects = fetched.map { "\($0.url ?? "-")|\($0.slug ?? "-")|\($0.title)|\($0.note)" }.sorted()
        #expect(objects == rows && rows == ["a|s|first|second"])

        first.note = "through first"
        try context.save()
        #expect(second.note == "through first")
        let after = try ManagedObjectContext(container).fetch(FetchDescriptor<TwoKeyFeed>())
        #expect(after.map(\.note) == ["through first"])
    }

    // MARK: Review

    /// X's folder read (none) before the save, and Y set into a folder: the upsert wrote
    /// Y's folder into X's row, but `standIn(_:savedOnto:…)` moves only attributes, so X
    /// (the row's one object) went on saying "no folder" while the row and Y named it.
    @Test func aToOneReadBeforeTheSaveFollowsTheUpsert() throws {
        let scene = try scene(in: try TemporaryDirectory(), moveRow: false)
        let context = scene.context
        let seed = ManagedObjectContext(scene.container)
        MovedKeyFolder(context: seed).name = "f"
        try seed.save()
        let folder = try context.fetch(FetchDescriptor<MovedKeyFolder>())[0]
        #expect(scene.x.folder == nil)
        scene.y.folder = folder
        let other = ManagedObjectContext(scene.container)
        try other.fetch(FetchDescriptor<MovedKeyFeed>())[0].url = "b"
        try other.save()

        try context.save()
        let stored = try ManagedObjectContext(scene.container).fetch(FetchDescriptor<MovedKeyFeed>())
        #expect(stored.map { $0.folder?.name } == ["f"])
        #expect(scene.y.resolved === scene.x)
        #expect(scene.x.folder === folder)
        #expect(scene.y.folder === folder)
        #expect(folder.feeds.count == 1 && folder.feeds.first === scene.x)
    }
}
