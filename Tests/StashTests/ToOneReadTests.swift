import Foundation
import Testing

@testable import Stash

/// A to-one relationship with no inverse: its `inverseListIndex` is none.
final class Tally: ManagedObject, Decodable {
    @Attribute var count = 0
    @Relationship var rack: Rack?
}

/// A model whose `awakeFromInsert()` reads specimen 1's rack: a to-one read made while an
/// all-or-nothing decode runs.
final class RackReader: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var note: String

    override func awakeFromInsert() {
        let specimens = try? managedObjectContext?.fetch(
            FetchDescriptor<Specimen>(predicate: #Predicate { $0.code == 1 }))
        _ = specimens?.first?.rack
    }
}

/// A pin, and a board that names one: a decoded pin that names its row is partly loaded, and
/// learns that its row is gone only when it loads the rest.
final class Pin: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var colour = "red"
}

final class Board: ManagedObject {
    @Attribute var number = 0
    @Relationship var pin: Pin?
}

/// Seventeen entities, one more than `IdentityMap` scans before it hashes.
final class Drawer1: ManagedObject { @Attribute var number = 0 }
final class Drawer2: ManagedObject { @Attribute var number = 0 }
final class Drawer3: ManagedObject { @Attribute var number = 0 }
final class Drawer4: ManagedObject { @Attribute var number = 0 }
final class Drawer5: ManagedObject { @Attribute var number = 0 }
final class Drawer6: ManagedObject { @Attribute var number = 0 }
final class Drawer7: ManagedObject { @Attribute var number = 0 }
final class Drawer8: ManagedObject { @Attribute var number = 0 }
final class Drawer9: ManagedObject { @Attribute var number = 0 }
final class Drawer10: ManagedObject { @Attribute var number = 0 }
final class Drawer11: ManagedObject { @Attribute var number = 0 }
final class Drawer12: ManagedObject { @Attribute var number = 0 }
final class Drawer13: ManagedObject { @Attribute var number = 0 }
final class Drawer14: ManagedObject { @Attribute var number = 0 }
final class Drawer15: ManagedObject { @Attribute var number = 0 }
final class Drawer16: ManagedObject { @Attribute var number = 0 }
final class Drawer17: ManagedObject { @Attribute var number = 0 }

/// What reading a related object takes short cuts through: the relationship column read
/// straight into its slot by a fetch, the inverse's list index kept once known, and the
/// state of the target's entity found by scanning a small container.
@Suite struct ToOneReadTests {
    /// Slot 5 of `Specimen` is `rack`.
    private static let rackSlot = 5

    /// A file store with rack "top" and specimen 1 on it, and specimen 2 on none.
    private func rackedSpecimens() throws -> (TemporaryDirectory, PersistentContainer, Rack) {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Specimen.self, Rack.self, storeURL: directory.file())
        return (directory, container, try seedRack("top", in: container))
    }

    /// Saves a rack named `name` with specimen 1 on it and specimen 2 on none.
    private func seedRack(_ name: String, in container: PersistentContainer) throws -> Rack {
        let context = ManagedObjectContext(container)
        let rack = Rack(context: context)
        rack.name = name
        for code in [1, 2] {
            let specimen = Specimen(context: context)
            specimen.code = code
            if code == 1 { specimen.rack = rack }
        }
        try context.save()
        return rack
    }

    @Test func aFetchReadsARowIDAsTheRowAndNullAsNoTarget() throws {
        let (_, container, rack) = try rackedSpecimens()

        let other = ManagedObjectContext(container)
        let fetched = try other.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.code)]))
        try #require(fetched.count == 2)
        guard case .row(let rowID) = RelationshipTarget(of: fetched[0], atSlot: Self.rackSlot) else {
            Issue.record("the fetched relationship does not hold its row")
            return
        }
        #expect(rowID == rack.rowID)
        guard case .none = RelationshipTarget(of: fetched[1], atSlot: Self.rackSlot) else {
            Issue.record("a NULL column was read as a target")
            return
        }
        // Set to none, not left unset: nothing is loaded again for it.
        #expect(fetched[1].layout.isSet(atSlot: Self.rackSlot, of: fetched[1]))
        #expect(fetched[0].rack?.name == "top")
        #expect(fetched[1].rack == nil)
        #expect(!other.hasChanges)
    }

    /// A target the context holds is read as it is: the slot keeps naming its row, so the
    /// read writes nothing (it enters nothing that would check where it runs). One no one
    /// holds is loaded and kept, so that the next read costs no query.
    @Test func aHeldTargetIsReadWithoutBeingKeptAndALoadedOneIsKept() throws {
        let (_, container, rack) = try rackedSpecimens()
        let other = ManagedObjectContext(container)
        var held = try other.fetch(FetchDescriptor<Rack>()).first
        try #require(held != nil)
        let specimen = try #require(
            try other.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.code == 1 })).first)
        #expect(specimen.rack === held)
        guard case .row(let rowID) = RelationshipTarget(of: specimen, atSlot: Self.rackSlot) else {
            Issue.record("a target the context holds was kept in the slot")
            return
        }
        #expect(rowID == rack.rowID)
        held = nil
        #expect(specimen.rack?.name == "top")
        guard case .object(let kept) = RelationshipTarget(of: specimen, atSlot: Self.rackSlot) else {
            Issue.record("a loaded target was not kept in the slot")
            return
        }
        #expect(kept.rowID == rack.rowID)
    }

    /// A target loaded by a read while an all-or-nothing decode runs is not kept: the decode,
    /// undone, takes it out of the context, and a slot keeping it would name an object the
    /// context no longer knows (a second object for the row at the next fetch).
    @Test func aTargetLoadedDuringADecodeThatFailsIsNotKeptByTheObjectThatReadIt() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(
            for: Specimen.self, Rack.self, RackReader.self, storeURL: directory.file())
        _ = try seedRack("top", in: container)
        let context = ManagedObjectContext(container)
        let specimen = try #require(
            try context.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.code == 1 })).first)
        #expect(throws: (any Error).self) {
            try context.decode([RackReader].self, from: Data(#"[{"id": 1, "note": "a"}, {"id": 2}]"#.utf8))
        }
        guard case .row = RelationshipTarget(of: specimen, atSlot: Self.rackSlot) else {
            Issue.record("the rack the undone decode loaded stayed in the specimen's slot")
            return
        }
        let read = try #require(specimen.rack)
        let fetched = try #require(try context.fetch(FetchDescriptor<Rack>()).first)
        #expect(read === fetched)
        #expect(read.name == "top")
    }

    /// A held target whose row is gone reads as no target, whether another context deleted it
    /// (its save reaches this one as mail, which the read merges first) or another process did
    /// (and the context refreshed the target): the slot names the row, and the object the
    /// context held for it must not be handed out as if the row were there.
    @Test(arguments: [false, true])
    func aHeldTargetWhoseRowIsGoneReadsAsNoTarget(deletedByAnotherProcess: Bool) throws {
        let (directory, container, _) = try rackedSpecimens()
        let context = ManagedObjectContext(container)
        let held = try #require(try context.fetch(FetchDescriptor<Rack>()).first)
        let specimen = try #require(
            try context.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.code == 1 })).first)
        #expect(specimen.rack === held)
        if deletedByAnotherProcess {
            // The rack's row only: the specimen's column still names it, as a careless writer leaves it.
            _ = try sqliteShellWriting(directory.file(), #"PRAGMA foreign_keys = OFF; DELETE FROM "Rack""#)
            context.refresh(held, mergeChanges: true)
        } else {
            let other = ManagedObjectContext(container)
            let rack = try #require(try other.fetch(FetchDescriptor<Rack>()).first)
            other.delete(rack)
            try other.save()
        }
        #expect(specimen.rack == nil)
        #expect(held.isRowDeleted)
        #expect(try context.fetch(FetchDescriptor<Rack>()).isEmpty)
        #expect(!context.hasChanges)
    }

    /// Another context points the relationship at another row this context holds too: the
    /// read merges that save before it finds a held target, so it gives the new target, not
    /// the one the slot named before (both are held, so neither needs the store).
    @Test func aHeldReadMergesAnotherContextsRepointingFirst() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        #expect(book.writer === writers[0])

        let other = ManagedObjectContext(container)
        let otherBook = try #require(
            try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        otherBook.writer = try other.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 2 })).first
        try other.save()

        #expect(book.writer === writers[1])
        #expect(book.writer?.name == "Octavia")
        #expect(!context.hasChanges)
    }

    /// The same when the context learns it only from loading the target's values: the object
    /// stays registered for its row, and the to-one read that finds it must see that it is gone.
    @Test func aPartlyLoadedTargetWhoseRowIsGoneReadsAsNoTarget() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Pin.self, Board.self, storeURL: directory.file())
        let seeding = ManagedObjectContext(container)
        let board = Board(context: seeding)
        board.pin = Pin(context: seeding)
        board.pin?.id = 1
        try seeding.save()

        let context = ManagedObjectContext(container)
        let pin = try #require(try context.decode([Pin].self, from: Data(#"[{"id": 1}]"#.utf8)).first)
        #expect(!pin.unloaded.isEmpty)
        let fetched = try #require(try context.fetch(FetchDescriptor<Board>()).first)
        #expect(fetched.pin === pin)
        _ = try sqliteShellWriting(directory.file(), #"PRAGMA foreign_keys = OFF; DELETE FROM "Pin""#)
        _ = pin.colour
        #expect(pin.isRowDeleted)
        #expect(fetched.pin == nil)
    }

    @Test func aColumnThatHoldsNoRowIDFailsTheFetchNamingTheRelationship() throws {
        let (directory, container, _) = try rackedSpecimens()
        // Text in an INTEGER column stays text: not a row id.
        _ = try sqliteShellWriting(directory.file(), #"UPDATE "Specimen" SET "rack" = 'top' WHERE "code" = 1"#)
        let error = #expect(throws: StashError.self) {
            try ManagedObjectContext(container).fetch(FetchDescriptor<Specimen>())
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.entity == "Specimen")
        #expect(error?.attribute == "rack")
        #expect(error?.message.contains("the stored text value is not a row id for Rack?") == true)
    }

    @Test func theInverseListIndexIsTheSameEachTimeAndNoneWithoutAnInverse() throws {
        let specimen = try EntityRegistry.shared.entity(for: Specimen.self)
        let rack = try #require(specimen.relationship(atSlot: Self.rackSlot))
        let rackEntity = try EntityRegistry.shared.entity(for: Rack.self)
        let list = try #require(rackEntity.relationships.first { $0.name == "specimenList" })
        guard case .toMany(let index) = list.kind else {
            Issue.record("specimenList is not a to-many relationship")
            return
        }
        #expect(rack.inverseListIndex == index)
        #expect(rack.inverseListIndex == index)
        let tally = try EntityRegistry.shared.entity(for: Tally.self)
        let tallyRack = try #require(tally.relationships.first { $0.name == "rack" })
        #expect(tallyRack.inverseListIndex == nil)
        #expect(tallyRack.inverseListIndex == nil)
    }

    @Test func aContainerOfManyEntitiesFindsEachByClass() throws {
        let types: [ManagedObject.Type] = [
            Drawer1.self, Drawer2.self, Drawer3.self, Drawer4.self, Drawer5.self, Drawer6.self, Drawer7.self,
            Drawer8.self, Drawer9.self, Drawer10.self, Drawer11.self, Drawer12.self, Drawer13.self, Drawer14.self,
            Drawer15.self, Drawer16.self, Drawer17.self,
        ]
        for count in [1, 16, 17] {
            let entities = try types.prefix(count).map { try EntityRegistry.shared.entity(for: $0) }
            let map = IdentityMap(
                entities, positions: EntityDescription.positionsByType(entities), departures: DepartureSignal())
            for (position, type) in types.prefix(count).enumerated() {
                #expect(try map.state(forType: type) === map.states[position])
            }
            let error = #expect(throws: StashError.self) { try map.state(forType: Specimen.self) }
            #expect(error?.code == .unknownEntity)
            #expect(error?.entity == "Specimen")
        }
    }

    /// Writers already held by the context are used as they are; the others are read in one
    /// query, each once however many books name it; a book with no writer keeps none.
    @Test func prefetchingLoadsEachMissingTargetOnceAndKeepsTheHeldOnes() throws {
        let container = try graphContainer()
        let seed = ManagedObjectContext(container)
        let books = (0..<30).map { #"{"id": \#($0), "writer": {"id": \#($0 % 6), "name": "W\#($0 % 6)"}}"# }
        _ = try recipeDecoder(seed).decode([Book].self, from: json("[" + books.joined(separator: ",") + "]"))
        let orphan = Book(context: seed)
        orphan.id = 99
        try seed.save()

        let context = ManagedObjectContext(container)
        let held = try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id < 3 }))
        #expect(held.count == 3)
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])
        descriptor.relationshipKeyPathsForPrefetching = [\.writer]
        let store = container.store as! SQLiteStore
        let before = store.statementsRun
        let fetched = try context.fetch(descriptor)
        let writerSlot = try #require(
            try EntityRegistry.shared.entity(for: Book.self).relationships.first { $0.name == "writer" }?.slot)
        // The books, then the three writers not held, in one statement.
        #expect(store.statementsRun - before == 2)
        #expect(fetched.count == 31)
        for book in fetched where book.id < 30 {
            guard case .object(let writer) = RelationshipTarget(of: book, atSlot: writerSlot) else {
                Issue.record("book \(book.id)'s writer was not kept")
                continue
            }
            #expect((writer as? Writer)?.id == book.id % 6)
            if book.id % 6 < 3 { #expect(writer === held[held.firstIndex { $0.id == book.id % 6 }!]) }
        }
        #expect(fetched.last?.writer == nil)
        #expect(store.statementsRun - before == 2)
        #expect(Set(fetched.compactMap { $0.writer.map(ObjectIdentifier.init) }).count == 6)
    }

    /// Two writers whose row ids fall on the same place of prefetching's table of row ids
    /// already taken (1,024 apart), named in turn by 1,200 books: every look-up there misses,
    /// and the row ids handed on must still come down to two rows read, in one statement
    /// (1,200 row ids would take more than one).
    @Test func prefetchingReadsEachTargetOnceWhenTheirRowIDsCollide() throws {
        let container = try graphContainer()
        let seed = ManagedObjectContext(container)
        let writers = (0..<1_100).map { number in
            let writer = Writer(context: seed)
            writer.id = number
            writer.name = "W\(number)"
            return writer
        }
        try seed.save()
        let byRow = Dictionary(uniqueKeysWithValues: writers.map { ($0.rowID!, $0) })
        let first = try #require(byRow.keys.sorted().first { byRow[$0 + 1_024] != nil })
        let pair = [byRow[first]!, byRow[first + 1_024]!]
        for number in 0..<1_200 {
            let book = Book(context: seed)
            book.id = number
            book.writer = pair[number % 2]
        }
        try seed.save()

        let context = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])
        descriptor.relationshipKeyPathsForPrefetching = [\.writer]
        let store = container.store as! SQLiteStore
        let before = store.statementsRun
        let books = try context.fetch(descriptor)
        #expect(store.statementsRun - before == 2)
        #expect(books.count == 1_200)
        #expect(books.map { $0.writer?.id } == (0..<1_200).map { pair[$0 % 2].id })
        // Reading the writers ran nothing more: each book keeps its prefetched writer.
        #expect(store.statementsRun - before == 2)
    }

    /// Another process points a book at the other writer after this context read it, with
    /// the writers prefetched (the slot then holds the object) or read one at a time (the
    /// row): the next fetch gives the book its new writer either way, and NULL as none.
    @Test(arguments: [true, false])
    func aWriterChangedByAnotherProcessIsReadAtTheNextFetch(prefetching: Bool) throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])
        if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.writer] }
        let books = try context.fetch(descriptor)
        #expect(books.map { $0.writer?.name } == ["Ursula", "Ursula", "Octavia"])
        _ = try sqliteShellWriting(
            directory.file(),
            #"UPDATE "Book" SET "writer" = (SELECT "_pk" FROM "Writer" WHERE "id" = 2) WHERE "id" = 10; "#
                + #"UPDATE "Book" SET "writer" = NULL WHERE "id" = 20"#)
        let again = try context.fetch(descriptor)
        #expect(again.map { $0.writer?.name } == ["Octavia", "Ursula", nil])
        #expect(again[0] === books[0])
        #expect(!context.hasChanges)
    }

    @Test func relatedObjectsReadInAContainerOfManyEntities() throws {
        let container = try testContainer(
            for: Drawer1.self, Drawer2.self, Drawer3.self, Drawer4.self, Drawer5.self, Drawer6.self, Drawer7.self,
            Drawer8.self, Drawer9.self, Drawer10.self, Drawer11.self, Drawer12.self, Drawer13.self, Drawer14.self,
            Drawer15.self, Specimen.self, Rack.self, inMemory: true)
        _ = try seedRack("far", in: container)
        let fetched = try ManagedObjectContext(container).fetch(
            FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.code)]))
        #expect(fetched.map { $0.rack?.name } == ["far", nil])
    }
}
