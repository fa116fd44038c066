import Foundation
import Testing

@testable import Stash

/// A model that uses every hook, recording what ran.
final class Memo: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var text: String = ""
    @Attribute var firstSeen: Date = .distantPast
    @Attribute var words: Int = 0
    @Attribute var source: String = ""

    // Unchecked: only the serialized `LifeCycleTests` use `Memo`, one test at a time.
    nonisolated(unsafe) static var events: [String] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        firstSeen = Date(timeIntervalSince1970: 1_800_000_000)
        source = "awake"
        Self.events.append("awake \(text)")
    }

    override func willSave() {
        // Set only when it differs, as Core Data asks: a save does not loop.
        let count = text.split(separator: " ").count
        if words != count { words = count }
        Self.events.append("willSave \(id)")
    }

    override func prepareForDeletion() {
        Self.events.append("prepareForDeletion \(id) \(text)")
    }

    override func validateForInsert() throws {
        if text == "invalid" { throw MemoInvalid() }
    }

    override func validateForUpdate() throws {
        if text.isEmpty { throw StashError(.missingValue, "an edited note needs text") }
    }
}

/// A model whose `willSave()` inserts another object, an audit entry, for each new one.
final class Ledger: ManagedObject {
    @Attribute(.unique) var id: Int
    @Attribute var note: String = ""

    // Unchecked: only the serialized `LifeCycleTests` use `Ledger`, one test at a time.
    nonisolated(unsafe) static var calls: [Int] = []

    override func willSave() {
        Self.calls.append(id)
        if id > 0, isInserted, let context = managedObjectContext { Ledger(context: context).id = -id }
    }
}

struct MemoInvalid: Error, CustomStringConvertible {
    var description: String { "the text says invalid" }
}

/// Hook tests share `Memo.events`: one at a time.
@Suite(.serialized, .bothStores) struct LifeCycleTests {
    init() { Memo.events = [] }

    @Test func awakeFromInsertSetsDefaultsThatGivenValuesBeat() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let context = ManagedObjectContext(try testContainer(for: Memo.self, storeURL: file))
        // Decoded: the JSON's source wins over the hook's, the hook's firstSeen stays.
        let decoded = try context.decode(Memo.self, from: json(#"{"id": 1, "text": "a b c", "source": "json"}"#))
        #expect(decoded.source == "json")
        #expect(decoded.firstSeen == Date(timeIntervalSince1970: 1_800_000_000))
        // Made in code: awoken on insert, then set.
        let made = Memo(context: context)
        made.id = 2
        #expect(made.source == "awake")
        try context.save()
        #expect(Memo.events == ["awake a b c", "awake ", "willSave 1", "willSave 2"])
        #expect(try sqliteShell(file, "SELECT id, words, source FROM Memo ORDER BY id") == "1|3|json\n2|0|awake\n")
        // Decoding a stored row again is no insert: no awake, and the stored values stay.
        Memo.events = []
        let again = ManagedObjectContext(try testContainer(for: Memo.self, storeURL: file))
        _ = try again.decode(Memo.self, from: json(#"{"id": 1, "text": "a b c"}"#))
        try again.save()
        #expect(Memo.events.filter { $0.hasPrefix("awake") }.isEmpty)
        #expect(try sqliteShell(file, "SELECT source FROM Memo WHERE id = 1") == "json\n")
    }

    /// A new object that turns out to name a stored row does not pass the hook's defaults on.
    @Test func awakeDefaultsDoNotOverwriteAStoredRow() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: Memo.self, storeURL: file)
        let first = ManagedObjectContext(container)
        _ = try first.decode(Memo.self, from: json(#"{"id": 7, "text": "kept", "source": "server"}"#))
        try first.save()
        _ = try sqliteShellWriting(file, "UPDATE Memo SET firstSeen = '2020-01-01T00:00:00.000Z' WHERE id = 7")
        let context = ManagedObjectContext(container)
        let note = Memo(context: context)
        note.id = 7
        note.text = "edited"
        try context.save()
        #expect(
            try sqliteShell(file, "SELECT text, source, firstSeen FROM Memo")
                == "edited|server|2020-01-01T00:00:00.000Z\n")
    }

    @Test func willSaveChangesAreSavedAndValidationFailsTheSave() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let context = ManagedObjectContext(try testContainer(for: Memo.self, storeURL: file))
        let note = try context.decode(Memo.self, from: json(#"{"id": 1, "text": "invalid"}"#))
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.entity == "Memo")
        #expect(error?.message.contains("the text says invalid") == true)
        #expect(try sqliteShell(file, "SELECT count(*) FROM Memo") == "0\n")
        note.text = "one two"
        try context.save()
        #expect(try sqliteShell(file, "SELECT words FROM Memo") == "2\n")
        note.text = ""
        let update = #expect(throws: StashError.self) { try context.save() }
        #expect(update?.message == "an edited note needs text")
        #expect(update?.entity == "Memo")
        #expect(context.hasChanges)
        #expect(try sqliteShell(file, "SELECT text FROM Memo") == "one two\n")
    }

    /// Every pending object's `willSave()` runs once, and so does that of each object a hook
    /// inserted; an object both changed and deleted is called once.
    @Test func objectsAHookInsertsGetTheirWillSaveOnce() throws {
        Ledger.calls = []
        let context = ManagedObjectContext(try testContainer(for: Ledger.self, inMemory: true))
        for id in 1...3 { Ledger(context: context).id = id }
        try context.save()
        #expect(Ledger.calls.sorted() == [-3, -2, -1, 1, 2, 3])
        #expect(try context.fetchCount(FetchDescriptor<Ledger>()) == 6)
        let all = try context.fetch(FetchDescriptor<Ledger>(sortBy: [SortDescriptor(\.id)]))
        #expect(all.map(\.id) == [-3, -2, -1, 1, 2, 3])
        Ledger.calls = []
        all[3].note = "changed"
        all[4].note = "changed, then deleted"
        context.delete(all[4])
        context.delete(all[5])
        try context.save()
        #expect(Ledger.calls.sorted() == [1, 2, 3])
        #expect(try context.fetchCount(FetchDescriptor<Ledger>()) == 4)
        // Nothing pending: no hook runs.
        Ledger.calls = []
        try context.save()
        #expect(Ledger.calls.isEmpty)
    }

    @Test func prepareForDeletionRunsBeforeTheDeleteRules() throws {
        let context = ManagedObjectContext(try testContainer(for: Memo.self, inMemory: true))
        let note = try context.decode(Memo.self, from: json(#"{"id": 3, "text": "bye"}"#))
        try context.save()
        Memo.events = []
        context.delete(note)
        context.delete(note)
        #expect(Memo.events == ["prepareForDeletion 3 bye"])
        try context.save()
        #expect(Memo.events == ["prepareForDeletion 3 bye", "willSave 3"])
    }
}
