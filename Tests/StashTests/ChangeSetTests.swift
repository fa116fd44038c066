import Foundation
import Testing

@testable import Stash

/// What `saveChanges()` answers: the IDs of the rows the save changed.
@Suite(.bothStores) struct ChangeSetTests {
    /// A save's change set makes its IDs only when first read (`ChangeSetIDs`): it equals, and
    /// hashes as, the same IDs given at once, and is empty only when the save changed nothing.
    @Test func aSavesChangeSetIsTheIDsOfTheRowsItChanged() throws {
        let context = ManagedObjectContext(try graphContainer())
        let books = try recipeDecoder(context).decode([Book].self, from: json(#"[{"id": 1}, {"id": 2}]"#))
        let changes = try context.saveChanges()
        #expect(!changes.isEmpty)
        let expected = ChangeSet(inserted: Set(books.map(\.objectID)))
        #expect(changes == expected)
        #expect(changes.hashValue == expected.hashValue)
        #expect(Set([changes, expected, try context.saveChanges()]).count == 2)
        #expect(changes.updated.isEmpty && changes.deleted.isEmpty)
        #expect(changes.touches(entityNamed: "Book") && !changes.touches(entityNamed: "Writer"))
        books[0].title = "edited"
        context.delete(books[1])
        let edit = try context.saveChanges()
        #expect(edit.inserted.isEmpty && edit.updated == [books[0].objectID])
        #expect(edit.deleted.map(\.rowID) == [books[1].objectID.rowID])
        #expect(try context.saveChanges().isEmpty)
    }

    /// The row ids of one entity, as StashREST reads them: the same rows the ID sets list,
    /// whether read from the save's note (before or after the sets are made) or from sets
    /// given by hand.
    @Test func anEntitysRowsAreTheRowsItsIDsName() throws {
        let context = ManagedObjectContext(try graphContainer())
        let books = try recipeDecoder(context).decode(
            [Book].self, from: json(#"[{"id": 1}, {"id": 2}, {"id": 3}]"#))
        let writer = Writer(context: context)
        writer.id = 1
        writer.name = "a writer"
        try context.save()
        // Another entity's row 1 changes too: only the books' rows are the books'.
        #expect(writer.objectID.rowID == books[0].objectID.rowID)
        writer.name = "renamed"
        books[2].title = "edited"
        context.delete(books[1])
        let book = Book(context: context)
        book.id = 4
        let changes = try context.saveChanges()
        func rowIDs(_ objects: [ManagedObject]) -> [Int64] { objects.compactMap(\.objectID.rowID).sorted() }
        func sorted(_ rows: RowChanges) -> [[Int64]] {
            [rows.inserted.sorted(), rows.updated.sorted(), rows.deleted.sorted()]
        }
        let bookRows = sorted(changes.rows(ofEntityNamed: "Book"))
        #expect(bookRows[0] == rowIDs([book]) && bookRows[1] == rowIDs([books[2]]))
        #expect(bookRows[2] == [try #require(books[1].objectID.rowID)])
        #expect(sorted(changes.rows(ofEntityNamed: "Writer")) == [[], rowIDs([writer]), []])
        // The same once the sets are made, and from sets given by hand.
        #expect(changes.inserted.count == 1)
        #expect(sorted(changes.rows(ofEntityNamed: "Book")) == bookRows)
        let byHand = ChangeSet(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted)
        #expect(sorted(byHand.rows(ofEntityNamed: "Book")) == bookRows)
        #expect(sorted(byHand.rows(ofEntityNamed: "Writer")) == [[], rowIDs([writer]), []])
    }

    final class Pin: ManagedObject {
        @Attribute(.unique) var code: Int
        @Attribute(.unique) var label: String
    }

    /// Two new objects, each naming the stored row by another unique attribute: the first
    /// takes the row (and its label moves), so the second's label is free and it is a new
    /// row. Each row is listed once, in the IDs and in the rows StashREST counts.
    @Test func twoNewObjectsNamingOneRowByDifferentKeys() throws {
        let container = try testContainer(for: Pin.self, inMemory: true)
        func pin(_ code: Int, _ label: String, in context: ManagedObjectContext) -> Pin {
            let pin = Pin(context: context)
            pin.code = code
            pin.label = label
            return pin
        }
        let first = ManagedObjectContext(container)
        let stored = pin(1, "one", in: first)
        try first.save()
        let second = ManagedObjectContext(container)
        let byCode = pin(1, "by code", in: second)
        let byLabel = pin(3, "one", in: second)
        let changes = try second.saveChanges()
        let row = try #require(stored.objectID.rowID)
        #expect(byCode.objectID == stored.objectID && byLabel.objectID != stored.objectID)
        #expect(changes.updated == [stored.objectID] && changes.inserted == [byLabel.objectID])
        #expect(
            changes.rows(ofEntityNamed: "Pin")
                == RowChanges(inserted: [try #require(byLabel.objectID.rowID)], updated: [row]))
        let rows = try ManagedObjectContext(container).fetch(FetchDescriptor<Pin>(sortBy: [SortDescriptor(\.code)]))
        #expect(rows.map { "\($0.code) \($0.label)" } == ["1 by code", "3 one"])
    }

    /// Objects whose attributes and many-to-many lists both changed in one save (on either
    /// side of the list): each row is listed once among the updated.
    @Test func anObjectChangedTwiceOverIsListedOnce() throws {
        let container = try testContainer(for: Card.self, Badge.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let cards = try recipeDecoder(context).decode(
            [Card].self, from: json(#"[{"id": 1, "labels": [{"name": "a"}]}, {"id": 2, "labels": [{"name": "b"}]}]"#))
        try context.save()
        let (a, b) = (cards[0].labels[0], cards[1].labels[0])
        cards[0].id = 10
        a.name = "a2"
        b.name = "b2"
        cards[0].labels.append(b)
        let changes = try context.saveChanges()
        func rowIDs(_ objects: [ManagedObject]) throws -> [Int64] {
            try objects.map { try #require($0.objectID.rowID) }.sorted()
        }
        #expect(changes.rows(ofEntityNamed: "Card") == RowChanges(updated: try rowIDs([cards[0]])))
        #expect(changes.rows(ofEntityNamed: "Badge") == RowChanges(updated: try rowIDs([a, b])))
    }
}
