import Foundation
import Testing

@testable import Stash

/// A feed added by hand before its row is fetched: a placeholder title, a note of its own.
final class PendingFeed: ManagedObject {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""
}

/// A feed that notes where it was added, in `awakeFromInsert()`: a default for a new row.
final class AwakenedFeed: ManagedObject {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var addedBy: String = ""

    override func awakeFromInsert() {
        addedBy = "this device"
    }
}

/// A new object inserted with its own `UniqueMatch`, whose row another context saves before
/// a fetch of this one meets it: the fetch makes the object that row's as its match says,
/// not by the merge policy alone.
@Suite(.bothStores) struct FetchMeetsPendingInsertTests {
    /// `.adopt`: a row another context saved after the insert keeps its values, also when a
    /// fetch meets the row first (`materialize` → `adopt`). Decided by the merge policy alone,
    /// `.incomingWins` kept the placeholder as a change, and the save wrote it over the row.
    @Test func adoptKeepsARowSavedElsewhereThatAFetchMeetsFirst() throws {
        let container = try testContainer(for: PendingFeed.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let draft = PendingFeed()
        draft.url = "u"
        draft.title = "(loading…)"
        context.insert(draft, onMatch: .adopt)
        #expect(draft.isInserted)

        let writer = ManagedObjectContext(container)
        let theirs = PendingFeed(context: writer)
        theirs.url = "u"
        theirs.title = "Real"
        theirs.note = "theirs"
        try writer.save()

        // The app lists its feeds, then saves.
        let listed = try context.fetch(FetchDescriptor<PendingFeed>())
        #expect(listed.count == 1 && listed[0] === draft)
        #expect(draft.title == "Real")
        try context.save()

        let fresh = ManagedObjectContext(container)
        let stored = try fresh.fetch(FetchDescriptor<PendingFeed>())
        #expect(stored.map(\.title) == ["Real"])
        #expect(stored.map(\.note) == ["theirs"])
    }

    /// The other way round: `.upsert` under `.storedWins` keeps the values given.
    @Test func upsertWritesTheGivenValuesThoughAFetchMetTheRowFirst() throws {
        let container = try testContainer(for: PendingFeed.self, inMemory: true)
        let context = ManagedObjectContext(container)
        context.mergePolicy = .storedWins
        let draft = PendingFeed()
        draft.url = "u"
        draft.title = "mine"
        context.insert(draft, onMatch: .upsert)

        let writer = ManagedObjectContext(container)
        let theirs = PendingFeed(context: writer)
        theirs.url = "u"
        theirs.title = "Real"
        try writer.save()

        _ = try context.fetch(FetchDescriptor<PendingFeed>())
        #expect(draft.title == "mine")
        try context.save()
        let fresh = ManagedObjectContext(container)
        #expect(try fresh.fetch(FetchDescriptor<PendingFeed>()).map(\.title) == ["mine"])
    }

    /// What `awakeFromInsert()` set is for a new row, not a change of the row the fetch met:
    /// the row keeps its value, and the values the caller gave win (`.incomingWins`).
    @Test func aDefaultFromAwakeFromInsertIsNotWrittenOverTheRowAFetchMeets() throws {
        let container = try testContainer(for: AwakenedFeed.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let draft = AwakenedFeed(context: context)
        draft.url = "u"
        draft.title = "mine"
        #expect(draft.addedBy == "this device")

        let writer = ManagedObjectContext(container)
        let theirs = AwakenedFeed(context: writer)
        theirs.url = "u"
        theirs.title = "theirs"
        theirs.addedBy = "their device"
        try writer.save()

        #expect(try context.fetch(FetchDescriptor<AwakenedFeed>()).map { $0 === draft } == [true])
        #expect(draft.addedBy == "their device")
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<AwakenedFeed>())
        #expect(stored.map(\.title) == ["mine"])
        #expect(stored.map(\.addedBy) == ["their device"])
    }
}
