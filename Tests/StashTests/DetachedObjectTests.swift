import Foundation
import Testing

@testable import Stash

/// Saved objects moved to another context (what StashREST does with an import's objects):
/// the object a read of the row makes, without the read.
@Suite(.bothStores) struct DetachedObjectTests {
    /// Plain values of every kind, a date finer than the store keeps.
    final class Reading: ManagedObject, Codable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var takenAt: Date
        @Attribute var link: URL
        @Attribute var value: Double?
        @Attribute var note: String?
        @Attribute var valid: Bool = true
        @Attribute var sensor: UUID?
        @Attribute var raw: Data = Data()
        @Attribute var checkedAt: Date?
    }

    static let payload = json(
        #"""
        [{"id": 1, "title": "first", "takenAt": 1000.1234567, "link": "https://example.com/a?b=1", "value": 2.5,
          "sensor": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "raw": "AAEC", "checkedAt": 5.0006},
         {"id": 2, "title": "é", "takenAt": -0.0004, "link": "https://example.com/é", "note": "x", "valid": false}]
        """#)

    func saved(_ container: PersistentContainer) throws -> (ManagedObjectContext, [Reading]) {
        let writer = ManagedObjectContext(container)
        let readings = try recipeDecoder(writer).decode([Reading].self, from: Self.payload)
        try writer.save()
        return (writer, readings)
    }

    func detach(_ object: ManagedObject, from context: ManagedObjectContext) -> DetachedObject? {
        context.detach([object]) { _, _ in true }[0]
    }

    func values(_ reading: Reading) -> [String] {
        [
            "\(reading.id)", reading.title, "\(reading.takenAt.timeIntervalSinceReferenceDate)",
            reading.link.absoluteString, "\(String(describing: reading.value))", "\(String(describing: reading.note))",
            "\(reading.valid)", "\(String(describing: reading.sensor))", reading.raw.base64EncodedString(),
            "\(String(describing: reading.checkedAt?.timeIntervalSinceReferenceDate))",
        ]
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func anAdoptedObjectIsTheObjectAReadMakesWithoutReadingTheStore() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let decodedDate = readings[0].takenAt
        let detached = writer.detach(readings) { _, _ in true }.compactMap { $0 }
        #expect(detached.count == 2)
        let store = container.store as! SQLiteStore
        let context = ManagedObjectContext(container)
        let before = store.statementsRun
        let handed = try context.adopt(detached).map { $0 as! Reading }
        #expect(store.statementsRun == before)
        #expect(handed.map(\.id) == [1, 2])
        // Moved, not copied.
        #expect(zip(handed, readings).allSatisfy { $0 === $1 })
        #expect(handed.allSatisfy { $0.managedObjectContext === context && !$0.objectID.isTemporary })
        let read = try ManagedObjectContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(handed.map(values) == read.map(values))
        // The date as the store keeps it (to the millisecond), not as it was decoded.
        #expect(handed[0].takenAt != decodedDate && handed[0].takenAt == read[0].takenAt)
        // They are the context's objects from now on: a fetch finds them, not copies.
        let fetched = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(zip(fetched, handed).allSatisfy { $0 === $1 })
        handed[1].note = "changed"
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT note FROM Reading WHERE id = 2") == "changed\n")
    }

    @Test func anObjectTheContextHoldsStaysAsItIs() throws {
        let container = try testContainer(for: Reading.self, inMemory: true)
        let (writer, readings) = try saved(container)
        let detached = writer.detach(readings) { _, _ in true }.compactMap { $0 }
        let context = ManagedObjectContext(container)
        let held = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == 2 }))[0]
        held.note = "unsaved"
        let handed = try context.adopt(detached)
        #expect(handed[1] === held)
        #expect(held.note == "unsaved")
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func withNewObjectsOfTheEntityTheRowsAreReadAsExistingObjectsReadsThem() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let detached = writer.detach(readings) { _, _ in true }.compactMap { $0 }
        let context = ManagedObjectContext(container)
        let pending = Reading(context: context)
        pending.id = 1
        let store = container.store as! SQLiteStore
        let before = store.statementsRun
        let handed = try context.adopt(detached)
        #expect(store.statementsRun > before)
        #expect(handed.map { ($0 as! Reading).id } == [1, 2])
        let existing = try context.existingObjects(with: detached.map(\.objectID))
        #expect(zip(handed, existing).allSatisfy { $0 === $1 })
    }

    @Test func aSaveSinceTheyLeftAndTheRowsAreReadInstead() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let detached = writer.detach(readings) { _, _ in true }.compactMap { $0 }
        // Another context changes one row and deletes the other.
        let other = ManagedObjectContext(container)
        let stored = try other.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        stored[0].title = "changed elsewhere"
        other.delete(stored[1])
        try other.save()
        let handed = try ManagedObjectContext(container).adopt(detached).map { $0 as! Reading }
        #expect(handed.map(\.title) == ["changed elsewhere"])
        // Another process's commit counts too.
        let (writer2, readings2) = try saved(container)
        let fresh = writer2.detach(readings2) { _, _ in true }.compactMap { $0 }
        _ = try sqliteShellWriting(directory.file(), "UPDATE Reading SET title = 'by the shell' WHERE id = 1")
        let read = try ManagedObjectContext(container).adopt(fresh).map { $0 as! Reading }
        #expect(read.map(\.title) == ["by the shell", "é"])
    }

    @Test func anObjectWithANumberTheStoreChangesStays() throws {
        final class Measure: ManagedObject, Codable {
            @Attribute(.unique) var id: Int
            // Before the numbers: rounded only once they are known to come back as they are.
            @Attribute var at: Date
            @Attribute var value: Double
            @Attribute var spare: Float?
        }
        let container = try testContainer(for: Measure.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let values: [(Double, Float?)] = [(1.5, 2), (-0.0, nil), (0, .nan), (1, -0.0)]
        let finer = Date(timeIntervalSince1970: 7.0004)
        let measures = values.enumerated().map { index, pair in
            let measure = Measure(context: context)
            measure.id = index
            measure.value = pair.0
            measure.spare = pair.1
            measure.at = finer
            return measure
        }
        try context.save()
        let detached = context.detach(measures) { _, _ in true }
        // SQLite keeps -0.0 as 0.0 and NaN as NULL: those objects stay, their rows are read.
        #expect(detached.map { $0 != nil } == [true, false, false, false])
        #expect(measures.map { $0.managedObjectContext === context } == [false, true, true, true])
        // The one that left holds its date as the store does; those that stay are untouched.
        #expect(measures[0].at == Date(timeIntervalSince1970: 7))
        #expect(measures.dropFirst().allSatisfy { $0.at == finer })
    }

    /// Only the objects whose rows the caller names leave, by entity and row id (StashREST
    /// names the rows its save inserted): another entity's row of the same id stays.
    @Test func onlyTheRowsNamedLeave() throws {
        final class Gauge: ManagedObject {
            @Attribute(.unique) var id: Int
        }
        let container = try testContainer(for: Reading.self, Gauge.self, inMemory: true)
        let (writer, readings) = try saved(container)
        let gauges = (1...2).map { id in
            let gauge = Gauge(context: writer)
            gauge.id = id
            return gauge
        }
        try writer.save()
        let second = try #require(readings[1].objectID.rowID)
        #expect(gauges.map(\.objectID.rowID) == readings.map(\.objectID.rowID))
        var asked: [String] = []
        let objects: [ManagedObject] = readings + gauges
        let detached = writer.detach(objects) { entity, rowID in
            asked.append("\(entity) \(rowID)")
            return entity == "Reading" && rowID == second
        }
        #expect(asked == objects.map { "\($0.objectID.entityName) \($0.objectID.rowID!)" })
        #expect(detached.map { $0?.objectID } == [nil, readings[1].objectID, nil, nil])
        #expect(objects.map { $0.managedObjectContext === writer } == [true, false, true, true])
    }

    @Test func whatCannotLeaveStays() throws {
        let container = try testContainer(
            for: Reading.self, Writer.self, Book.self, Review.self, Publisher.self, Sample.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let readings = try recipeDecoder(context).decode([Reading].self, from: Self.payload)
        // Not saved yet.
        #expect(detach(readings[0], from: context) == nil)
        let writer = Writer(context: context)
        writer.id = 1
        writer.name = "has relationships"
        let everything = Sample(context: context)
        everything.id = 1
        try context.save()
        // Relationships, or a value kept as JSON text or as an enum's raw value.
        #expect(detach(writer, from: context) == nil)
        #expect(detach(everything, from: context) == nil)
        // Changed since the save.
        readings[1].title = "changed"
        #expect(detach(readings[1], from: context) == nil)
        // Another context's object.
        #expect(detach(readings[0], from: ManagedObjectContext(container)) == nil)
        #expect([writer, everything, readings[1], readings[0]].allSatisfy { $0.managedObjectContext === context })
        #expect(detach(readings[0], from: context) != nil)
    }

    /// The context an object left forgets it: its row gets a new object there, by fetch or
    /// by decoding, and the object that left is not touched.
    @Test func theContextItLeftMakesANewObjectForTheRow() throws {
        let container = try testContainer(for: Reading.self, inMemory: true)
        let (writer, readings) = try saved(container)
        let gone = readings[0]
        _ = writer.detach([gone]) { _, _ in true }
        let fetched = try writer.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == 1 }))[0]
        #expect(fetched !== gone && fetched.title == "first")
        let decoded = try recipeDecoder(writer).decode(
            Reading.self,
            from: json(#"{"id": 1, "title": "again", "takenAt": 1, "link": "https://example.com/a"}"#))
        #expect(decoded === fetched && decoded.title == "again")
        #expect(gone.title == "first" && gone.managedObjectContext == nil)
        // Decoded with no fetch first: the unique value names the row.
        let other = readings[1]
        _ = writer.detach([other]) { _, _ in true }
        let second = try recipeDecoder(writer).decode(
            Reading.self,
            from: json(#"{"id": 2, "title": "two", "takenAt": 1, "link": "https://example.com/b"}"#))
        #expect(second !== other && other.title == "é")
        try writer.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.title) == ["again", "two"])
    }

    /// Decoded again unchanged in the context it left, its row is compared, not rewritten.
    @Test func decodedAgainWhereItLeftItsRowIsCompared() throws {
        let container = try testContainer(for: Reading.self, inMemory: true)
        let writer = ManagedObjectContext(container)
        let readings = try recipeDecoder(writer).decode([Reading].self, from: Self.payload)
        try writer.save()
        _ = writer.detach(readings) { _, _ in true }
        _ = try recipeDecoder(writer).decode([Reading].self, from: Self.payload)
        #expect(try writer.saveChanges().isEmpty)
    }

    /// Unique by two values together, all of them plain: such objects may leave.
    final class Edition: ManagedObject, Decodable, CompositeUniqueModel {
        @Attribute var isbn: String
        @Attribute var year: Int

        static var uniqueConstraints: [[PartialKeyPath<Edition>]] { [[\.isbn, \.year]] }
    }

    /// A model with a stored property of its own besides Stash's wrappers.
    final class Cached: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        var memo: [String] = []
    }

    @Test func anObjectThatLeavesIsInNoIndexOfTheContext() throws {
        let container = try testContainer(for: Edition.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let edition = try recipeDecoder(context).decode(Edition.self, from: json(#"{"isbn": "a", "year": 2001}"#))
        try context.save()
        #expect(detach(edition, from: context) != nil)
        let state = context.identity.state(for: edition.entity)
        let entries = state.compositeIndexes.flatMap(\.values) + state.uniqueIndexes.flatMap(\.values)
        #expect(!entries.contains { if case .unsaved(let entry) = $0 { entry.object === edition } else { false } })
        #expect(!state.byRowID.objects.contains { $0 === edition })
        let again = try recipeDecoder(context).decode(Edition.self, from: json(#"{"isbn": "a", "year": 2001}"#))
        #expect(again !== edition)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Edition>()) == 1)
    }

    @Test func aModelWithStoredPropertiesOfItsOwnStays() throws {
        let container = try testContainer(for: Cached.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let cached = try recipeDecoder(context).decode(Cached.self, from: json(#"{"id": 1}"#))
        try context.save()
        #expect(detach(cached, from: context) == nil)
        #expect(cached.managedObjectContext === context)
    }

    @Test func aDetachedObjectIsAdoptedOnce() async {
        await #expect(processExitsWith: .failure) {
            let container = try testContainer(for: Reading.self, inMemory: true)
            let writer = ManagedObjectContext(container)
            _ = try recipeDecoder(writer).decode(
                Reading.self, from: json(#"{"id": 1, "title": "t", "takenAt": 1, "link": "https://example.com"}"#))
            try writer.save()
            let readings = try writer.fetch(FetchDescriptor<Reading>())
            let detached = writer.detach(readings) { _, _ in true }.compactMap { $0 }
            _ = try ManagedObjectContext(container).adopt(detached)
            _ = try ManagedObjectContext(container).adopt(detached)
        }
    }
}
