import Foundation
import Testing

@testable import Stash

/// A remote feed with values of several kinds, for what an insert matched at save records.
final class MatchedInsertFeed: ManagedObject, Codable, RemoteModel {
    static let remotePath = "feeds"
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var count: Int = 0
    @Attribute var score: Double = 0
    @Attribute var due: Date?
    @Attribute var note: String?
}

/// An object inserted into a context whose unique value a stored row already holds is
/// saved onto that row (an upsert), and under `.incomingWins` records a `PATCH`. Only of
/// the columns whose value differs from what the row held before the save: one the row
/// already held was not changed, and a push would send it over the server's value.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct MatchedInsertUnchangedColumnsTests {
    static let due = Date(timeIntervalSince1970: 1_700_000_000.25)

    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(for: MatchedInsertFeed.self, storeURL: directory.file())
    }

    /// Another context stores the row `a`, its `POST` acknowledged (pushed) if `pushed`.
    func storeRow(pushed: Bool = true, title: String = "A") throws {
        let seed = ManagedObjectContext(container)
        let row = MatchedInsertFeed(context: seed)
        row.url = "a"
        row.title = title
        row.count = 3
        row.score = 1.5
        row.due = Self.due
        row.note = "stored note"
        try seed.save()
        if pushed { try container.acknowledgeWholeOutbox() }
    }

    /// A context that does not take other contexts' saves in: its inserts are matched to
    /// stored rows by the store, at save.
    func context(_ policy: MergePolicy = .incomingWins) -> ManagedObjectContext {
        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        context.automaticallyMergesChanges = false
        return context
    }

    func rows() throws -> String {
        try sqliteShell(
            directory.file(),
            "SELECT url, title, count, score, due IS NOT NULL, note FROM MatchedInsertFeed ORDER BY url")
    }

    /// A new object for `a`, made before any row holds `a`: the store matches it at save.
    @discardableResult func insert(
        _ context: ManagedObjectContext, title: String = "A", count: Int = 3, score: Double = 1.5,
        due: Date? = Self.due, note: String? = "stored note"
    ) -> MatchedInsertFeed {
        let feed = MatchedInsertFeed(context: context)
        feed.url = "a"
        feed.title = title
        feed.count = count
        feed.score = score
        feed.due = due
        feed.note = note
        return feed
    }

    @Test func anInsertHoldingTheRowsValuesRecordsNothing() throws {
        let context = context()
        let feed = insert(context)
        try storeRow()
        try context.save()
        #expect(feed.objectID.rowID == 1)
        #expect(try rows() == "a|A|3|1.5|1|stored note\n")
        #expect(try container.outboxSummary() == [])
    }

    @Test func onlyTheColumnsThatDifferAreRecorded() throws {
        let context = context()
        insert(context, count: 4, note: nil)
        try storeRow()
        try context.save()
        #expect(try rows() == "a|A|4|1.5|1|\n")
        #expect(try container.outboxSummary() == ["PATCH|count,note|0"])
    }

    @Test func everyColumnThatDiffersIsRecorded() throws {
        let context = context()
        insert(context, title: "B", count: 4, score: 2.5, due: nil, note: "new note")
        try storeRow()
        try context.save()
        #expect(try rows() == "a|B|4|2.5|0|new note\n")
        #expect(try container.outboxSummary() == ["PATCH|title,count,score,due,note|0"])
    }

    /// Look-alikes of the stored title are changes: the decomposed form (`A` + U+0301) of a
    /// precomposed `Á`, equal to it as Swift compares strings, and a Cyrillic `А` (U+0410)
    /// for a Latin `A`. The row takes their bytes, and the `PATCH` sends them.
    @Test(arguments: [("\u{C1}", "A\u{301}"), ("A", "\u{410}")])
    func aLookAlikeOfTheRowsValueIsRecorded(stored: String, incoming: String) throws {
        let context = context()
        insert(context, title: incoming)
        try storeRow(title: stored)
        try context.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])
        let hex = try sqliteShell(directory.file(), "SELECT hex(title) FROM MatchedInsertFeed")
        #expect(hex == Data(incoming.utf8).map { String(format: "%02X", $0) }.joined() + "\n")
    }

    /// A column the insert was not given keeps the row's value: not recorded either.
    @Test func aColumnNotGivenIsNotRecorded() throws {
        let context = context()
        let feed = MatchedInsertFeed(context: context)
        feed.url = "a"
        feed.title = "A"
        feed.count = 9
        try storeRow()
        try context.save()
        #expect(try rows() == "a|A|9|1.5|1|stored note\n")
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
        #expect(feed.note == "stored note")
    }

    /// Several inserts in one save: each records what it changed; a new row its `POST`.
    @Test func eachInsertOfASaveRecordsWhatItChanged() throws {
        let context = context()
        insert(context)
        let b = MatchedInsertFeed(context: context)
        b.url = "b"
        b.title = "B2"
        let c = MatchedInsertFeed(context: context)
        c.url = "c"
        try storeRow()
        let seed = ManagedObjectContext(container)
        let second = MatchedInsertFeed(context: seed)
        second.url = "b"
        second.title = "B"
        try seed.save()
        try container.acknowledgeWholeOutbox()
        try context.save()
        let recorded = try container.outboxOperations().sorted { $0.rowID < $1.rowID }
        #expect(recorded.map(\.method) == [.patch, .post])
        #expect(recorded.map(\.rowID) == [2, 3])
        #expect(recorded.first?.attributes == ["title"])
        #expect(try rows() == "a|A|3|1.5|1|stored note\nb|B2|0|0.0|0|\nc||0|0.0|0|\n")
    }

    /// An edit still waiting for the row keeps what it records; the insert adds what it
    /// changed, and nothing when it changed nothing.
    @Test func aPatchWaitingForTheRowKeepsItsAttributes() throws {
        let same = context()
        insert(same, title: "edited")
        let other = context()
        insert(other, title: "edited", count: 7)
        try storeRow()
        let editor = ManagedObjectContext(container)
        try editor.fetch(FetchDescriptor<MatchedInsertFeed>())[0].title = "edited"
        try editor.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])

        try same.save()
        #expect(try container.outboxSummary() == ["PATCH|title|0"])
        try other.save()
        #expect(try container.outboxSummary() == ["PATCH|title,count|1"])
        #expect(try rows() == "a|edited|7|1.5|1|stored note\n")
    }

    /// A `POST` still waiting for the row is left alone by an insert that changed nothing
    /// (its values are read when it is sent), and takes one that changed something.
    @Test func aPostWaitingForTheRowIsLeftAloneByAnUnchangedInsert() throws {
        let same = context()
        insert(same)
        let other = context()
        insert(other, note: "changed")
        try storeRow(pushed: false)
        #expect(try container.outboxSummary() == ["POST||0"])
        try same.save()
        #expect(try container.outboxSummary() == ["POST||0"])
        try other.save()
        #expect(try container.outboxSummary() == ["POST||1"])
    }

    /// A `PATCH` already sent is not merged into: an unchanged insert adds no operation of
    /// its own after it, a changed one adds the `PATCH` of what it changed.
    @Test func anUnchangedInsertAddsNothingAfterAPatchInFlight() throws {
        let same = context()
        insert(same, count: 5)
        let other = context()
        insert(other, count: 5, score: 4)
        try storeRow()
        let editor = ManagedObjectContext(container)
        try editor.fetch(FetchDescriptor<MatchedInsertFeed>())[0].count = 5
        try editor.save()
        let sent = try container.outboxOperations()[0]
        #expect(try container.updateOutbox(attempted: OutboxAttempt(sequence: sent.sequence, body: Data("{}".utf8))))
        try same.save()
        #expect(try container.outboxSummary() == ["PATCH|count|0"])
        try other.save()
        #expect(try container.outboxSummary() == ["PATCH|count|0", "PATCH|score|0"])
    }

    /// `.storedWins` still records nothing, whatever the insert held.
    @Test func underStoredWinsNothingIsRecorded() throws {
        let context = context(.storedWins)
        insert(context, title: "B", count: 4)
        try storeRow()
        try context.save()
        #expect(try rows() == "a|A|3|1.5|1|stored note\n")
        #expect(try container.outboxSummary() == [])
    }
}
