import Foundation
import Testing

@testable import Stash

/// A remote feed for what an update of its row records.
final class UpdatedFeed: ManagedObject, Codable, RemoteModel {
    static let remotePath = "feeds"
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Relationship var folder: UpdatedFolder?
}

/// A remote folder a feed is in: its foreign key is a column of the feed's row.
final class UpdatedFolder: ManagedObject, Codable, RemoteModel {
    static let remotePath = "folders"
    @Attribute(.unique) var name: String
}

/// An object that already has a row (fetched, or an insert the context matched to a stored
/// row as soon as its unique value was set) records a `PATCH` of the columns whose value
/// differs from what the row held before the save: one set to the value the row already
/// held was not changed, and a push would send it over the server's value.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct UpdatedUnchangedColumnsTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(for: UpdatedFeed.self, UpdatedFolder.self, storeURL: directory.file())
    }

    /// Another context stores the row `a` (title `A`, count 3, in folder `f`) and folder
    /// `g`, their `POST`s acknowledged (pushed).
    func storeRow() throws {
        let seed = ManagedObjectContext(container)
        let folder = UpdatedFolder(context: seed)
        folder.name = "f"
        UpdatedFolder(context: seed).name = "g"
        let row = UpdatedFeed(context: seed)
        row.url = "a"
        row.title = "A"
        row.count = 3
        row.folder = folder
        try seed.save()
        try container.acknowledgeWholeOutbox()
    }

    func context(_ policy: MergePolicy = .incomingWins) -> ManagedObjectContext {
        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        return context
    }

    func rows() throws -> String {
        try sqliteShell(directory.file(), "SELECT url, title, count, folder FROM UpdatedFeed ORDER BY url")
    }

    func fetched(_ context: ManagedObjectContext) throws -> UpdatedFeed {
        try context.fetch(FetchDescriptor<UpdatedFeed>())[0]
    }

    func folder(_ name: String, in context: ManagedObjectContext) throws -> UpdatedFolder {
        try context.fetch(FetchDescriptor<UpdatedFolder>()).first { $0.name == name }!
    }

    /// The context matches the insert to the row when its unique value is set: an update.
    @Test func anInsertMatchedAtOnceSetToTheRowsValuesRecordsNothing() throws {
        try storeRow()
        let context = context()
        let feed = UpdatedFeed(context: context)
        feed.url = "a"
        feed.title = "A"
        feed.count = 3
        try context.save()
        #expect(feed.objectID.rowID == 1)
        #expect(try rows() == "a|A|3|1\n")
        #expect(try container.outboxSummary() == [])
    }

    @Test func anInsertMatchedAtOnceRecordsOnlyTheColumnsThatDiffer() throws {
        try storeRow()
        let context = context()
        let feed = UpdatedFeed(context: context)
        feed.url = "a"
        feed.title = "A"
        feed.count = 4
        try context.save()
        #expect(try rows() == "a|A|4|1\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
    }

    /// A fetched object's column changed and changed back before the save: no change.
    @Test func aColumnChangedAndChangedBackInOneSaveRecordsNothing() throws {
        try storeRow()
        let context = context()
        let feed = try fetched(context)
        feed.title = "B"
        feed.title = "A"
        feed.count = 4
        try context.save()
        #expect(try rows() == "a|A|4|1\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
    }

    /// Changed back in a later save, while the first `PATCH` waits: the row held the
    /// first save's value, so the column is changed again, and the `PATCH` keeps it (the
    /// server still holds the value from before both saves).
    @Test func aColumnChangedBackInALaterSaveStaysInTheWaitingPatch() throws {
        try storeRow()
        let context = context()
        let feed = try fetched(context)
        feed.title = "B"
        try context.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])
        feed.title = "A"
        feed.count = 3
        try context.save()
        #expect(try rows() == "a|A|3|1\n")
        #expect(try container.outboxSummary() == ["PATCH|title|1"])
    }

    /// A `PATCH` waiting for the row keeps its attributes; an update that changed nothing
    /// adds nothing, one that changed a column adds only that one.
    @Test func aPatchWaitingForTheRowKeepsItsAttributes() throws {
        try storeRow()
        let editor = context()
        try fetched(editor).title = "edited"
        try editor.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])

        let same = context()
        let feed = UpdatedFeed(context: same)
        feed.url = "a"
        feed.title = "edited"
        feed.count = 3
        try same.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])

        let other = context()
        let changed = UpdatedFeed(context: other)
        changed.url = "a"
        changed.title = "edited"
        changed.count = 7
        try other.save()
        #expect(try container.outboxSummary() == ["PATCH|title,count|1"])
        #expect(try rows() == "a|edited|7|1\n")
    }

    /// A to-one relationship set to the target the row already names is not a change.
    @Test func aRelationshipSetToItsStoredTargetRecordsNothing() throws {
        try storeRow()
        let context = context()
        let feed = UpdatedFeed(context: context)
        feed.url = "a"
        feed.folder = try folder("f", in: context)
        feed.count = 4
        try context.save()
        #expect(try rows() == "a|A|4|1\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])

        let other = self.context()
        let moved = UpdatedFeed(context: other)
        moved.url = "a"
        moved.folder = try folder("g", in: other)
        try other.save()
        #expect(try rows() == "a|A|4|2\n")
        #expect(try container.outboxSummary() == ["PATCH|count,folder|1"])
    }

    /// Under `.storedWins`, a column another context changed since this one read it is left
    /// as stored: not changed here, not recorded.
    @Test func aColumnLeftAsStoredIsNotRecorded() throws {
        try storeRow()
        let context = context(.storedWins)
        context.automaticallyMergesChanges = false
        let feed = try fetched(context)
        let other = self.context()
        try fetched(other).title = "theirs"
        try other.save()
        try container.acknowledgeWholeOutbox()
        feed.title = "mine"
        feed.count = 4
        try context.save()
        #expect(try rows() == "a|theirs|4|1\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
    }

    /// Another writer's save set the row to this save's value after the context read it:
    /// the row, as the save's transaction reads it, already holds it.
    @Test func aValueAnotherWriterStoredSinceIsNotRecordedAgain() throws {
        try storeRow()
        let context = context()
        context.automaticallyMergesChanges = false
        let feed = try fetched(context)
        let other = self.context()
        other.recordsEdits = false
        try fetched(other).title = "server"
        try other.save()
        feed.title = "server"
        feed.count = 4
        try context.save()
        #expect(try rows() == "a|server|4|1\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
    }

    /// Look-alikes are changes: the title's decomposed form (`A` + U+0301 for `Á`), equal to
    /// the precomposed one as Swift compares strings, and a Cyrillic `А` (U+0410) for the
    /// Latin `A`. The row holds other bytes, and the server must get them.
    @Test(arguments: [("\u{C1}", "A\u{301}"), ("A", "\u{410}")])
    func aLookAlikeValueIsRecorded(stored: String, edited: String) throws {
        try storeRow()
        let context = context()
        let feed = try fetched(context)
        feed.title = stored
        try context.save()
        try container.acknowledgeWholeOutbox()
        feed.title = edited
        try context.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])
        let hex = try sqliteShell(directory.file(), "SELECT hex(title) FROM UpdatedFeed")
        #expect(hex == Data(edited.utf8).map { String(format: "%02X", $0) }.joined() + "\n")
    }
}
