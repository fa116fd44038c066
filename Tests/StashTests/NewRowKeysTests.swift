import Foundation
import Testing

@testable import Stash

/// When a batch of `decodeAndSave` may spare the store its look-up of new rows' unique values:
/// only where the context's index of the column proves them new.
@Suite struct NewRowKeysTests {
    final class Badge: ManagedObject, Decodable {
        @Attribute(.unique) var code: Int
        @Attribute var name: String = ""
    }

    /// An index that read the (empty) column, with the generation and token it is true for.
    private func loadedIndex() throws -> (StoredKeyIndex, PersistentContainer, UInt64, Int64) {
        let container = try PersistentContainer(for: Badge.self, inMemory: true)
        let entity = container.entities[0]
        let index = StoredKeyIndex()
        #expect(
            try index.rowID(
                for: .integer(1), column: entity.uniqueAttributes[0].index, of: entity.schema, in: container)
                == nil)
        return (index, container, container.saveGeneration, try container.store.changeToken())
    }

    @Test func anIndexProvesOnlyWhatItHoldsForItsGenerationAndToken() throws {
        let (index, _, generation, token) = try loadedIndex()
        #expect(index.holdsNone(of: [.integer(1), .integer(2)], generation: generation, token: token))
        #expect(!index.holdsNone(of: [.integer(1)], generation: generation + 1, token: token))
        #expect(!index.holdsNone(of: [.integer(1)], generation: generation, token: token + 1))
        index.didSave(
            deleting: [], inserting: [7], keys: [(.integer(1), 7)], movingKeys: false, generationBefore: generation,
            after: generation + 1, token: token)
        #expect(!index.holdsNone(of: [.integer(2), .integer(1)], generation: generation + 1, token: token))
        #expect(index.holdsNone(of: [.integer(2)], generation: generation + 1, token: token))
        index.didSave(
            deleting: [7], inserting: [], keys: [], movingKeys: false, generationBefore: generation + 1,
            after: generation + 2, token: token)
        #expect(index.holdsNone(of: [.integer(1)], generation: generation + 2, token: token))
    }

    /// A save outside a batch tells the index its rows, not their values: it cannot tell.
    @Test func rowsWhoseValuesAreNotReadYetProveNothing() throws {
        let (index, _, generation, token) = try loadedIndex()
        index.didSave(
            deleting: [], inserting: [7], movingKeys: false, generationBefore: generation, after: generation + 1,
            token: token)
        #expect(!index.holdsNone(of: [.integer(2)], generation: generation + 1, token: token))
    }

    @Test func aKeyMovedBySaveMakesTheIndexStartOver() throws {
        let (index, _, generation, token) = try loadedIndex()
        index.didSave(
            deleting: [], inserting: [], keys: [], movingKeys: true, generationBefore: generation,
            after: generation + 1, token: token)
        #expect(!index.holdsNone(of: [.integer(2)], generation: generation + 1, token: token))
    }

    /// End to end: each batch of new objects skips the store's look-up of their values, in
    /// memory and in a file, where the table holds other rows; a re-import inserts nothing.
    @Test(arguments: [false, true])
    func batchesOfNewObjectsSpareTheStoresLookUp(inFile: Bool) throws {
        let directory = try TemporaryDirectory()
        let container =
            inFile
            ? try PersistentContainer(for: Badge.self, storeURL: directory.url.appendingPathComponent("b.sqlite"))
            : try PersistentContainer(for: Badge.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let old = Data("[\((5_001...5_050).map { "{\"code\": \($0)}" }.joined(separator: ","))]".utf8)
        _ = try context.decode([Badge].self, from: old)
        try context.save()
        let payload = Data(
            "[\((1...1_000).map { "{\"code\": \($0), \"name\": \"b\($0)\"}" }.joined(separator: ","))]".utf8)
        let imported = try context.decodeAndSave([Badge].self, from: payload, batchSize: 100)
        #expect(imported.batches == 10)
        #expect(imported.storeLookUpsSpared == 10)
        #expect(try context.fetchCount(FetchDescriptor<Badge>()) == 1_050)
        let again = try context.decodeAndSave([Badge].self, from: payload, batchSize: 100)
        #expect(again.storeLookUpsSpared == 0)
        #expect(again.changes.inserted.isEmpty && again.changes.updated.isEmpty)
    }

    /// The values of a batch's new objects, and the entities they make the store's look-up
    /// needless for.
    @Test func newObjectsAreNewOnlyWhenEveryUniqueColumnIsProven() throws {
        let container = try PersistentContainer(for: Badge.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let stored = Badge(context: context)
        stored.code = 1
        try context.save()
        let state = try context.identity.state(forType: Badge.self)
        let fresh = Badge(context: context)
        fresh.code = 2  // looked up: the index reads the column
        let generation = container.saveGeneration
        let token = try container.store.changeToken()
        let keys = NewRowKeys(inserted: [[fresh]], states: [state])
        #expect(keys.areNew(at: 0, in: state, generation: generation, token: token))
        #expect(!keys.areNew(at: 0, in: state, generation: generation, token: token + 1))
        let taken = Badge()
        taken.code = 1  // not inserted: as a value set where no look-up saw it
        #expect(
            !NewRowKeys(inserted: [[taken]], states: [state]).areNew(
                at: 0, in: state, generation: generation, token: token))
        #expect(
            !NewRowKeys(inserted: [[]], states: [state]).areNew(at: 0, in: state, generation: generation, token: token))
        try context.save()
        #expect(keys.rows(at: 0, unique: 0).map(\.0) == [.integer(2)])
        #expect(keys.rows(at: 0, unique: 0).map(\.1) == [fresh.rowID])
    }
}
