import Foundation
import Testing

@testable import Stash

/// `PersistentContainer.pageDigests`, against digests worked out here from every row read
/// whole: StashREST keeps them in its validators, so the same rows must give the same digests
/// in every version, however the rows are looked up.
@Suite(.bothStores) struct PageDigestsTests {
    final class Shelf: ManagedObject {
        @Attribute(.unique) var code: Int
        @Attribute var label: String?
        @Attribute var weight: Double = 0
    }

    final class Tag: ManagedObject {
        @Attribute(.unique) var name: String
        @Attribute var uses: Int = 0
    }

    /// The digest of `columns` (names) of each row of `entity`, read here by a query of its own.
    func rowDigests(_ container: PersistentContainer, _ entity: String, _ columns: [String]) throws -> [Int64: UInt64] {
        let schema = try #require(container.entities.first { $0.name == entity }).schema
        let indexes = try columns.map { name in try #require(schema.columns.firstIndex { $0.name == name }) }
        var digests: [Int64: UInt64] = [:]
        try container.store.fetch(StoreQuery(schema, columns: indexes)) { row in
            var digest = RowDigest()
            for position in indexes.indices { row.digest(position, into: &digest) }
            digests[row.rowID] = digest.value
        }
        return digests
    }

    func identity(_ container: PersistentContainer, _ objects: [ObjectID]) throws -> UInt64? {
        var digest = RowDigest()
        for objectID in objects {
            let unique = objectID.entityName == "Shelf" ? ["code"] : ["name"]
            guard let rowID = objectID.rowID, let row = try rowDigests(container, objectID.entityName, unique)[rowID]
            else { return nil }
            digest.add(.text(objectID.entityName))
            digest.add(.integer(rowID))
            digest.add(.integer(Int64(bitPattern: row)))
        }
        return digest.value
    }

    func values(_ container: PersistentContainer, _ coverage: [ValueCoverage]) throws -> UInt64? {
        var digest = RowDigest()
        for covered in coverage {
            let schema = try #require(container.entities.first { $0.name == covered.entity }).schema
            guard covered.columns.allSatisfy({ name in schema.columns.contains { $0.name == name } }) else {
                return nil
            }
            let rows = try rowDigests(container, covered.entity, covered.columns)
            digest.add(.text(covered.entity))
            for name in covered.columns { digest.add(.text(name)) }
            for rowID in covered.rows {
                guard let row = rows[rowID] else { return nil }
                digest.add(.integer(rowID))
                if !covered.columns.isEmpty { digest.add(.integer(Int64(bitPattern: row))) }
            }
        }
        return digest.value
    }

    @Test func theDigestsAreThoseOfTheRowsAsTheyAreNow() throws {
        let container = try testContainer(for: Shelf.self, Tag.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let shelves = (1...6).map { code in
            let shelf = Shelf(context: context)
            shelf.code = code * 10
            shelf.label = code.isMultiple(of: 2) ? "shelf \(code)" : nil
            shelf.weight = Double(code) / 4
            return shelf
        }
        let tags = ["a", "b", "c"].map { name in
            let tag = Tag(context: context)
            tag.name = name
            tag.uses = name.count
            return tag
        }
        try context.save()
        context.delete(shelves[5])
        try context.save()
        let s = shelves.map(\.objectID)
        let t = tags.map(\.objectID)
        func rows(_ objects: [ManagedObject]) -> [Int64] { objects.compactMap(\.objectID.rowID) }
        let lists: [[ObjectID]] = [
            [s[0], s[1], s[2]],  // in order
            [s[3], s[0], s[3]],  // out of order, one twice
            [s[1], t[2], t[0], s[4]],  // two entities
            [],
            [s[4], s[5]],  // one deleted: nil
        ]
        let coverages: [[ValueCoverage]] = [
            [ValueCoverage(entity: "Shelf", columns: ["label", "weight"], rows: rows(Array(shelves[0..<5])))],
            [
                ValueCoverage(entity: "Tag", columns: ["uses"], rows: rows(tags)),
                ValueCoverage(entity: "Shelf", columns: ["weight"], rows: rows([shelves[2]])),
            ],
            [ValueCoverage(entity: "Shelf", columns: [], rows: rows([shelves[1], shelves[3]]))],  // there or not
            [ValueCoverage(entity: "Shelf", columns: ["weight"], rows: rows(shelves))],  // one deleted: nil
            [ValueCoverage(entity: "Tag", columns: ["gone"], rows: rows(tags))],  // no such column: nil
        ]
        let (identities, digests) = try container.pageDigests(identities: lists, coverages: coverages)
        #expect(try identities == lists.map { try identity(container, $0) })
        #expect(try digests == coverages.map { try values(container, $0) })
        #expect(identities.map { $0 == nil } == [false, false, false, false, true])
        #expect(digests.map { $0 == nil } == [false, false, false, true, true])
        // A changed value changes the digests that cover it, and only those.
        shelves[2].weight = 99
        try context.save()
        let (_, after) = try container.pageDigests(identities: [], coverages: coverages)
        #expect(try after == coverages.map { try values(container, $0) })
        #expect(zip(digests, after).map { $0 != $1 } == [true, true, false, false, false])
    }
}
