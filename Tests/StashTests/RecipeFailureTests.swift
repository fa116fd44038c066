import Foundation
import Testing

@testable import Stash

/// A record whose songs go with it, and its labels decoded after them (to-many relationships
/// are decoded in their order, after the to-one ones): a relationship that fails after
/// another was set.
final class Record: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship(deleteRule: .cascade, inverse: \Song.record) var songs: [Song]
    @Relationship var labels: [RecordLabel]
}

final class Song: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship var record: Record?
}

final class RecordLabel: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
}

/// A new object whose relationship fails to decode through the recipe (JSONDecoder, no
/// journal) leaves the context, as one whose attribute fails never enters it, and undoes
/// what its relationships did to other objects.
@Suite struct RecipeFailureTests {
    /// A store of the graph models with one writer, Ursula, decoded and saved.
    private func storeWithAWriter() throws -> (TemporaryDirectory, PersistentContainer, ManagedObjectContext, Writer) {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        let writer = try recipeDecoder(context).decode(Writer.self, from: json(#"{"id": 1, "name": "Ursula"}"#))
        try context.save()
        return (directory, container, context, writer)
    }

    @Test func aNewObjectWhoseNestedObjectFailsIsNotInserted() throws {
        let (directory, container, context, writer) = try storeWithAWriter()
        defer { withExtendedLifetime(directory) {} }
        // The writer is set (its list of books gains the book), then the publisher fails.
        #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(
                Book.self, from: json(#"{"id": 20, "writer": {"id": 1, "name": "Ursula"}, "publisher": {"id": "x"}}"#))
        }
        #expect(writer.books.isEmpty)
        #expect(!context.hasChanges)
        try context.save()
        let fresh = ManagedObjectContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Book>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<Writer>()).map { $0.books.count } == [0])
    }

    @Test func aFailedNewObjectCascadesToNothingItsListsNamed() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(
            for: Record.self, Song.self, RecordLabel.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Song].self, from: json(#"[{"id": 1}, {"id": 2}]"#))
        try context.save()
        // The songs are set (stored ones, by id), then a label fails: the record goes, and its
        // cascade must not take the songs with it.
        #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(
                Record.self, from: json(#"{"id": 7, "songs": [1, 2], "labels": [{"id": 3, "name": 4}]}"#))
        }
        // The songs are as they were: nothing for the next save to write.
        #expect(!context.hasChanges)
        try context.save()
        let fresh = ManagedObjectContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Record>()) == 0)
        let songs = try fresh.fetch(FetchDescriptor<Song>(sortBy: [SortDescriptor(\.id)]))
        #expect(songs.map(\.id) == [1, 2] && songs.allSatisfy { $0.record == nil })
        // The same record, whole, then decodes and saves.
        let record = try recipeDecoder(context).decode(
            Record.self, from: json(#"{"id": 7, "songs": [1, 2], "labels": [{"id": 3, "name": "Blue"}]}"#))
        try context.save()
        #expect(record.songs.map(\.id) == [1, 2] && record.labels.map(\.name) == ["Blue"])
    }

    /// An object the context has, or a stored row's, updated through the recipe: its attributes
    /// are applied before its relationships are decoded, so a relationship that fails puts it
    /// back as it was, to-one targets and their lists included.
    @Test func aFoundObjectWhoseRelationshipFailsIsLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        let book = try recipeDecoder(context).decode(
            Book.self, from: json(#"{"id": 20, "title": "Old", "writer": {"id": 1, "name": "Ursula"}}"#))
        _ = try recipeDecoder(context).decode(Writer.self, from: json(#"{"id": 2, "name": "Octavia"}"#))
        try context.save()
        let failing =
            #"{"id": 20, "title": "New", "writer": {"id": 2, "name": "Octavia E."}, "publisher": {"id": "x"}}"#
        #expect(throws: StashError.self) { _ = try recipeDecoder(context).decode(Book.self, from: json(failing)) }
        #expect(book.title == "Old" && book.writer?.id == 1)
        #expect(!context.hasChanges)
        // A stored row's object, not read into a context before: not left adopted with changes.
        let fresh = ManagedObjectContext(container)
        #expect(throws: StashError.self) { _ = try recipeDecoder(fresh).decode(Book.self, from: json(failing)) }
        #expect(!fresh.hasChanges)
        try fresh.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>())
        #expect(stored.map(\.title) == ["Old"] && stored.map { $0.writer?.id } == [1])
        let writers = try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(writers.map(\.name) == ["Ursula", "Octavia"] && writers.map { $0.books.count } == [1, 0])
        // Whole, the same update decodes and saves.
        _ = try recipeDecoder(context).decode(
            Book.self, from: json(#"{"id": 20, "title": "New", "writer": {"id": 2, "name": "Octavia E."}}"#))
        try context.save()
        #expect(book.title == "New" && book.writer?.name == "Octavia E.")
    }

    /// The journal a recipe object decodes under is kept for the next one (`spareJournal`):
    /// what it recorded for the last object, which succeeded, must not be undone with the
    /// next, which fails.
    @Test func aFailureUndoesNothingOfTheObjectBeforeIt() throws {
        let (directory, container, context, writer) = try storeWithAWriter()
        defer { withExtendedLifetime(directory) {} }
        #expect(writer.books.isEmpty)
        // The writer's list gains the book, and its name changes: both recorded.
        let first = try recipeDecoder(context).decode(
            Book.self, from: json(#"{"id": 20, "title": "Lathe", "writer": {"id": 1, "name": "Ursula K."}}"#))
        #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(
                Book.self,
                from: json(#"{"id": 21, "writer": {"id": 1, "name": "Ursula K."}, "publisher": {"id": "x"}}"#))
        }
        #expect(writer.books.map(\.id) == [20] && writer.name == "Ursula K.")
        #expect(first.writer === writer && first.managedObjectContext === context)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>())
        #expect(stored.map { $0.books.map(\.id) } == [[20]] && stored.map(\.name) == ["Ursula K."])
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Book>()) == 1)
    }

    /// Nor does it hold the objects it recorded once their decode is over: a new object the
    /// context lets go of (a rollback) is freed.
    @Test func theJournalKeptForTheNextObjectHoldsNoneOfTheLast() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(
            for: Record.self, Song.self, RecordLabel.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        weak var record: Record?
        weak var label: RecordLabel?
        do {
            let decoded = try recipeDecoder(context).decode(
                Record.self, from: json(#"{"id": 7, "songs": [], "labels": [{"id": 3, "name": "Blue"}]}"#))
            record = decoded
            label = decoded.labels.first
        }
        #expect(record != nil && label != nil)
        context.rollback()
        #expect(record == nil && label == nil)
        #expect(!context.hasChanges)
    }

    /// A new object from before the decode, deleted and inserted again by decoding code that
    /// then fails: the undo keeps it in the context as it was, not as a new object of the
    /// failed decode's.
    @Test func aNewObjectDeletedAndInsertedAgainByAFailedDecodeStaysAsItWas() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(
            for: Record.self, Song.self, RecordLabel.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let label = RecordLabel()
        label.id = 3
        label.name = "Blue"
        context.insert(label)
        let id = label.objectID
        #expect(throws: DecodingError.self) {
            _ = try context.decode(LabelReinsertedThenFailing.self, from: json("{}"))
        }
        #expect(label.managedObjectContext === context && label.objectID == id)
        #expect(label.name == "Blue")
        #expect(context.hasChanges)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<RecordLabel>())
        #expect(stored.map(\.name) == ["Blue"])
    }
}

/// Deletes the context's one new label, inserts it again, changes it, and fails.
private struct LabelReinsertedThenFailing: Decodable {
    init(from decoder: any Decoder) throws {
        let context = try #require(decoder.userInfo[.managedObjectContext] as? ManagedObjectContext)
        let label = try #require(try context.fetch(FetchDescriptor<RecordLabel>()).first)
        context.delete(label)
        context.insert(label)
        label.name = "Changed"
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "planted failure"))
    }
}
