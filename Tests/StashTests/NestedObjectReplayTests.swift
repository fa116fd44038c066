import Foundation
import Testing

@testable import Stash

/// A nested object sent again byte for byte (a writer in every book) is decoded once by the
/// reader and applied again from what it decoded to (`NestedObjectMemo`,
/// `ObjectDecoder.replay`): each case is compared with JSONDecoder, which decodes every copy.
@Suite struct NestedObjectReplayTests {
    /// What a decode left: the writers and the books' writers, or the error.
    private struct Outcome: Equatable, CustomStringConvertible {
        var writers: [String] = []
        var books: [String] = []
        var error: String?
        var description: String { "writers \(writers), books \(books), error \(error ?? "none")" }
    }

    /// Decodes `json` as `[Book]` into a new store, through the reader or JSONDecoder, and
    /// saves; answers what is stored, and how many nested objects were replayed.
    private func importBooks(
        _ json: String, reader: Bool, policy: MergePolicy = .incomingWins,
        before: (ManagedObjectContext) throws -> Void = { _ in }
    ) throws -> (Outcome, replayed: Int) {
        let context = ManagedObjectContext(try graphContainer())
        try before(context)
        context.mergePolicy = policy
        let decoder = JSONDecoder()
        decoder.userInfo[.byteReaderDisabled] = !reader
        var outcome = Outcome()
        do {
            _ = try context.decode([Book].self, from: Data(json.utf8), using: decoder)
            try context.save()
        } catch {
            outcome.error = readerErrorText(error)
            context.rollback()
        }
        let reader = ManagedObjectContext(context.container)
        outcome.writers = try reader.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)])).map {
            "\($0.id) \($0.name)"
        }
        outcome.books = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])).map {
            "\($0.id) \($0.title) by \($0.writer.map { String($0.id) } ?? "nobody")"
        }
        return (outcome, context.decoding.replayedObjects)
    }

    /// Both paths' outcomes, which must agree; answers the reader's, and its replay count.
    private func bothPaths(
        _ json: String, policy: MergePolicy = .incomingWins, before: (ManagedObjectContext) throws -> Void = { _ in }
    ) throws -> (Outcome, replayed: Int) {
        let read = try importBooks(json, reader: true, policy: policy, before: before)
        let decoded = try importBooks(json, reader: false, policy: policy, before: before)
        #expect(read.0 == decoded.0)
        return read
    }

    private static func books(_ writers: [String]) -> String {
        "["
            + writers.enumerated().map {
                #"{"id": \#($0.offset), "title": "T\#($0.offset)", "writer": \#($0.element)}"#
            }
            .joined(separator: ",") + "]"
    }

    @Test func aWriterInEveryBookIsDecodedOnce() throws {
        let (outcome, replayed) = try bothPaths(
            Self.books(Array(repeating: #"{"id": 1, "name": "Ursula"}"#, count: 40)))
        #expect(outcome.writers == ["1 Ursula"])
        #expect(outcome.books.count == 40 && outcome.books.allSatisfy { $0.hasSuffix("by 1") })
        #expect(replayed == 39)
    }

    @Test func copiesAreTheSameContentWhateverTheSpacesButNotWhateverTheOrder() throws {
        let (_, spaced) = try bothPaths(Self.books([#"{"id": 1, "name": "U"}"#, #"{ "id":1 ,"name" : "U" }"#]))
        #expect(spaced == 1)
        let (_, reordered) = try bothPaths(Self.books([#"{"id": 1, "name": "U"}"#, #"{"name": "U", "id": 1}"#]))
        #expect(reordered == 0)
        // The same text as a key's value and as a number is not the same content.
        let (_, retyped) = try bothPaths(Self.books([#"{"id": 1, "name": "U"}"#, #"{"id": "1", "name": "U"}"#]))
        #expect(retyped == 0)
    }

    /// The last copy of an object wins, as when each is decoded: a copy the same as an
    /// earlier one is applied again over the one between.
    @Test func aCopyLikeAnEarlierOneWinsOverTheOneBetween() throws {
        let (outcome, replayed) = try bothPaths(
            Self.books([#"{"id": 1, "name": "A"}"#, #"{"id": 1, "name": "B"}"#, #"{"id": 1, "name": "A"}"#]))
        #expect(outcome.writers == ["1 A"])
        #expect(replayed == 1)
    }

    /// Copies that differ only far into their bytes are different objects, or values.
    @Test func copiesThatDifferLateInTheirBytesAreDecoded() throws {
        let (renamed, renamedReplays) = try bothPaths(
            Self.books([#"{"id": 1, "name": "Ann"}"#, #"{"id": 1, "name": "Amy"}"#]))
        #expect(renamed.writers == ["1 Amy"])
        let (two, twoReplays) = try bothPaths(Self.books([#"{"id": 12, "name": "X"}"#, #"{"id": 13, "name": "X"}"#]))
        #expect(two.writers == ["12 X", "13 X"])
        #expect(two.books == ["0 T0 by 12", "1 T1 by 13"])
        #expect(renamedReplays == 0 && twoReplays == 0)
    }

    /// A writer already stored is updated by the first copy and found by the next ones.
    @Test func aStoredWriterIsUpdatedAndItsCopiesReplayed() throws {
        let (outcome, replayed) = try bothPaths(
            Self.books(Array(repeating: #"{"id": 1, "name": "New"}"#, count: 5)),
            before: { context in
                _ = try context.decode([Writer].self, from: Data(#"[{"id": 1, "name": "Old"}]"#.utf8))
                try context.save()
                context.reset()
            })
        #expect(outcome.writers == ["1 New"])
        #expect(replayed == 4)
    }

    /// Batches let their objects go: a copy in a later batch finds its writer's row instead.
    @Test func aWriterInEveryBookAcrossBatches() throws {
        let context = ManagedObjectContext(try graphContainer())
        let json = Self.books(Array(repeating: #"{"id": 1, "name": "Ursula"}"#, count: 10))
        let saved = try context.decodeAndSave([Book].self, from: Data(json.utf8), batchSize: 3)
        #expect(saved.decoded == 10 && saved.batches == 4)
        let writers = try context.fetch(FetchDescriptor<Writer>())
        #expect(writers.map(\.name) == ["Ursula"])
        #expect(try context.fetchCount(FetchDescriptor<Book>(predicate: #Predicate { $0.writer != nil })) == 10)
        #expect(writers.first?.books.count == 10)
    }

    /// Under `.fail`, the second copy of a new writer is a conflict, replayed or not, with
    /// the same error and coding path.
    @Test func underFailTheSecondCopyIsTheSameConflict() throws {
        let (outcome, replayed) = try bothPaths(
            Self.books([#"{"id": 1, "name": "A"}"#, #"{"id": 1, "name": "A"}"#]), policy: .fail)
        #expect(outcome.error?.contains("path=[1].writer") == true)
        #expect(outcome.writers.isEmpty && outcome.books.isEmpty)
        #expect(replayed == 0)
    }

    /// Under `.storedWins` a stored writer keeps its values, copies or not.
    @Test func underStoredWinsAStoredWriterKeepsItsName() throws {
        let (outcome, _) = try bothPaths(
            Self.books(Array(repeating: #"{"id": 1, "name": "New"}"#, count: 3)), policy: .storedWins,
            before: { context in
                _ = try context.decode([Writer].self, from: Data(#"[{"id": 1, "name": "Old"}]"#.utf8))
                try context.save()
                context.reset()
            })
        #expect(outcome.writers == ["1 Old"])
    }

    /// A copy that names related objects is decoded each time: they may have moved since.
    /// The book nested in it, which names none, is replayed.
    @Test func aCopyWithRelatedObjectsIsDecoded() throws {
        let writer = #"{"id": 1, "name": "A", "books": [{"id": 90, "title": "Nested"}]}"#
        let (outcome, replayed) = try bothPaths(Self.books([writer, writer]))
        #expect(outcome.books.contains("90 Nested by 1"))
        #expect(replayed == 1)
    }

    /// A new book's hook changes its writer's name: the next copy of the writer puts the
    /// JSON's name back, as decoding it again would.
    @Test func aCopyAfterAHookChangedTheObjectPutsTheValuesBack() throws {
        let json =
            "[" + (0..<3).map { #"{"id": \#($0), "writer": {"id": 1, "name": "A"}}"# }.joined(separator: ",") + "]"
        var outcomes: [[String]] = []
        for reader in [true, false] {
            let context = ManagedObjectContext(
                try testContainer(for: HookedBook.self, HookedWriter.self, inMemory: true))
            let decoder = JSONDecoder()
            decoder.userInfo[.byteReaderDisabled] = !reader
            let books = try context.decode([HookedBook].self, from: Data(json.utf8), using: decoder)
            #expect(books.count == 3)
            try context.save()
            outcomes.append(
                try context.fetch(FetchDescriptor<HookedWriter>()).map { "\($0.id) \($0.name)" }
                    + ["replayed \(context.decoding.replayedObjects)"])
        }
        // Book 0's hook renamed the writer; book 1's copy of it put "A" back.
        #expect(outcomes[0] == ["1 A", "replayed 2"])
        #expect(outcomes[1] == ["1 A", "replayed 0"])
    }

    /// A hook deletes the writer: the next copy finds no object to apply to, and is decoded.
    @Test func aCopyOfADeletedObjectIsDecoded() throws {
        let json =
            "[" + (0..<3).map { #"{"id": \#($0 + 10), "writer": {"id": 1, "name": "A"}}"# }.joined(separator: ",")
            + "]"
        var outcomes: [String] = []
        for reader in [true, false] {
            let context = ManagedObjectContext(
                try testContainer(for: HookedBook.self, HookedWriter.self, inMemory: true))
            let decoder = JSONDecoder()
            decoder.userInfo[.byteReaderDisabled] = !reader
            do {
                _ = try context.decode([HookedBook].self, from: Data(json.utf8), using: decoder)
                try context.save()
                let writers = try context.fetch(FetchDescriptor<HookedWriter>())
                let books = try context.fetch(FetchDescriptor<HookedBook>(sortBy: [SortDescriptor(\.id)]))
                outcomes.append(
                    "\(writers.map(\.name)) \(books.map { "\($0.id):\($0.writer?.name ?? "none")" })")
            } catch {
                outcomes.append(readerErrorText(error))
            }
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[0] == #"["A"] ["10:none", "11:A", "12:A"]"#)
    }

    /// A hook of the nested writer decodes other objects (a tag with its category nested):
    /// what the writer decoded to is still what is kept for its next copy, not the
    /// category's, which would find writer 5 by the category's id.
    @Test func aDecodeInsideAHookDoesNotTakeTheNestedObjectsPlace() throws {
        let json = #"[{"id": 1, "writer": {"id": 1, "name": "A"}}, {"id": 2, "writer": {"id": 1, "name": "A"}}]"#
        let context = ManagedObjectContext(
            try testContainer(
                for: DecodingBook.self, DecodingWriter.self, ReplayTag.self, ReplayCategory.self, inMemory: true))
        // Held, so that the context still has writer 5 when the second copy comes.
        let five = try context.decode([DecodingWriter].self, from: Data(#"[{"id": 5, "name": "Five"}]"#.utf8))
        try context.save()
        let books = try context.decode([DecodingBook].self, from: Data(json.utf8))
        #expect(books.map { $0.writer?.id } == [1, 1])
        #expect(try context.fetchCount(FetchDescriptor<ReplayTag>()) == 1)
        try context.save()
        #expect(five.map(\.name) == ["Five"] && !five[0].hasChanges)
        #expect(context.decoding.replayedObjects == 1)
    }

    /// A custom date strategy runs the caller's code, which may give each copy another date:
    /// copies are then decoded each time, as JSONDecoder would.
    @Test func underACustomDateStrategyEveryCopyIsDecoded() throws {
        let json =
            "[" + (0..<4).map { #"{"id": \#($0), "event": {"id": 1, "when": "now"}}"# }.joined(separator: ",") + "]"
        var dates: [Double] = []
        for reader in [true, false] {
            let context = ManagedObjectContext(try testContainer(for: ReplayLog.self, ReplayEvent.self, inMemory: true))
            let calls = Locked(0)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { _ in
                Date(
                    timeIntervalSince1970: Double(
                        calls.withLock {
                            $0 += 1
                            return $0
                        }))
            }
            decoder.userInfo[.byteReaderDisabled] = !reader
            _ = try context.decode([ReplayLog].self, from: Data(json.utf8), using: decoder)
            try context.save()
            dates += try context.fetch(FetchDescriptor<ReplayEvent>()).map(\.when.timeIntervalSince1970)
            #expect(context.decoding.replayedObjects == 0)
        }
        #expect(dates == [4, 4])
    }
}

final class HookedWriter: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
}

/// Book 0 renames its writer as it is inserted; book 10 deletes it.
final class HookedBook: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship var writer: HookedWriter?

    override func awakeFromInsert() {
        if id == 0 { writer?.name = "renamed by a hook" }
        if id == 10, let writer { managedObjectContext?.delete(writer) }
    }
}

/// Decodes a tag, with its category nested, as it is inserted.
final class DecodingWriter: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String

    override func awakeFromInsert() {
        _ = try? managedObjectContext?.decode(
            ReplayTag.self, from: Data(#"{"id": 1, "category": {"id": 5, "label": "x"}}"#.utf8))
    }
}

final class DecodingBook: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship var writer: DecodingWriter?
}

final class ReplayTag: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship var category: ReplayCategory?
}

final class ReplayCategory: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var label: String
}

final class ReplayEvent: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var when: Date
}

final class ReplayLog: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship var event: ReplayEvent?
}
