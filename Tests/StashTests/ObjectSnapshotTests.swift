import Foundation
import Testing

@testable import Stash

/// Saved objects handed to another context by their values (what StashREST does with an
/// import's objects): the same object a read of the row makes, without the read.
@Suite struct ObjectSnapshotTests {
    /// Plain values of every kind a snapshot carries, a date finer than the store keeps.
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

    func snapshot(_ object: ManagedObject, in context: ManagedObjectContext) -> ObjectSnapshot? {
        context.snapshots(of: [object]) { _ in true }[0]
    }

    func values(_ reading: Reading) -> [String] {
        [
            "\(reading.id)", reading.title, "\(reading.takenAt.timeIntervalSinceReferenceDate)",
            reading.link.absoluteString, "\(String(describing: reading.value))", "\(String(describing: reading.note))",
            "\(reading.valid)", "\(String(describing: reading.sensor))", reading.raw.base64EncodedString(),
            "\(String(describing: reading.checkedAt?.timeIntervalSinceReferenceDate))",
        ]
    }

    @Test func aSnapshotMakesTheObjectAReadMakesWithoutReadingTheStore() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let snapshots = writer.snapshots(of: readings) { _ in true }.compactMap { $0 }
        #expect(snapshots.count == 2)
        let store = container.store as! SQLiteStore
        let context = ManagedObjectContext(container)
        let before = store.statementsRun
        let handed = try context.objects(from: snapshots).map { $0 as! Reading }
        #expect(store.statementsRun == before)
        #expect(handed.map(\.id) == [1, 2])
        #expect(handed.allSatisfy { $0.managedObjectContext === context && !$0.objectID.isTemporary })
        let read = try ManagedObjectContext(container).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(handed.map(values) == read.map(values))
        // The date as the store keeps it (to the millisecond), not as it was decoded.
        #expect(handed[0].takenAt != readings[0].takenAt)
        // They are the context's objects from now on: a fetch finds them, not copies.
        let fetched = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(zip(fetched, handed).allSatisfy { $0 === $1 })
        handed[1].note = "changed"
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT note FROM Reading WHERE id = 2") == "changed\n")
    }

    @Test func anObjectTheContextHoldsStaysAsItIs() throws {
        let container = try PersistentContainer(for: Reading.self, inMemory: true)
        let (writer, readings) = try saved(container)
        let snapshots = writer.snapshots(of: readings) { _ in true }.compactMap { $0 }
        let context = ManagedObjectContext(container)
        let held = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == 2 }))[0]
        held.note = "unsaved"
        let handed = try context.objects(from: snapshots)
        #expect(handed[1] === held)
        #expect(held.note == "unsaved")
    }

    @Test func withNewObjectsOfTheEntityTheRowsAreReadAsExistingObjectsReadsThem() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let snapshots = writer.snapshots(of: readings) { _ in true }.compactMap { $0 }
        let context = ManagedObjectContext(container)
        let pending = Reading(context: context)
        pending.id = 1
        let store = container.store as! SQLiteStore
        let before = store.statementsRun
        let handed = try context.objects(from: snapshots)
        #expect(store.statementsRun > before)
        #expect(handed.map { ($0 as! Reading).id } == [1, 2])
        let existing = try context.existingObjects(with: snapshots.map(\.objectID))
        #expect(zip(handed, existing).allSatisfy { $0 === $1 })
    }

    @Test func aSaveSinceTheSnapshotsAndTheRowsAreReadInstead() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(for: Reading.self, storeURL: directory.file())
        let (writer, readings) = try saved(container)
        let snapshots = writer.snapshots(of: readings) { _ in true }.compactMap { $0 }
        // Another context changes one row and deletes the other.
        let other = ManagedObjectContext(container)
        let stored = try other.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        stored[0].title = "changed elsewhere"
        other.delete(stored[1])
        try other.save()
        let handed = try ManagedObjectContext(container).objects(from: snapshots).map { $0 as! Reading }
        #expect(handed.map(\.title) == ["changed elsewhere"])
        // Another process's commit counts too.
        let (writer2, readings2) = try saved(container)
        let fresh = writer2.snapshots(of: readings2) { _ in true }.compactMap { $0 }
        _ = try sqliteShellWriting(directory.file(), "UPDATE Reading SET title = 'by the shell' WHERE id = 1")
        let read = try ManagedObjectContext(container).objects(from: fresh).map { $0 as! Reading }
        #expect(read.map(\.title) == ["by the shell", "é"])
    }

    @Test func noSnapshotOfANumberTheStoreChanges() throws {
        final class Measure: ManagedObject, Codable {
            @Attribute(.unique) var id: Int
            @Attribute var value: Double
            @Attribute var spare: Float?
        }
        let container = try PersistentContainer(for: Measure.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let values: [(Double, Float?)] = [(1.5, 2), (-0.0, nil), (0, .nan)]
        let measures = values.enumerated().map { index, pair in
            let measure = Measure(context: context)
            measure.id = index
            measure.value = pair.0
            measure.spare = pair.1
            return measure
        }
        try context.save()
        let snapshots = context.snapshots(of: measures) { _ in true }
        // SQLite keeps -0.0 as 0.0 and NaN as NULL: those objects are read back.
        #expect(snapshots.map { $0 != nil } == [true, false, false])
    }

    @Test func noSnapshotOfWhatCannotTravel() throws {
        let container = try PersistentContainer(
            for: Reading.self, Writer.self, Book.self, Review.self, Publisher.self, Sample.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let readings = try recipeDecoder(context).decode([Reading].self, from: Self.payload)
        // Not saved yet.
        #expect(snapshot(readings[0], in: context) == nil)
        let writer = Writer(context: context)
        writer.id = 1
        writer.name = "has relationships"
        let everything = Sample(context: context)
        everything.id = 1
        try context.save()
        #expect(snapshot(readings[0], in: context) != nil)
        // Relationships, or a value kept as JSON text or as an enum's raw value.
        #expect(snapshot(writer, in: context) == nil)
        #expect(snapshot(everything, in: context) == nil)
        // Changed since the save.
        readings[0].title = "changed"
        #expect(snapshot(readings[0], in: context) == nil)
        // Another context's object.
        #expect(snapshot(readings[1], in: ManagedObjectContext(container)) == nil)
    }
}
