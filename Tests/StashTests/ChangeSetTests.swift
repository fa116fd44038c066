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
}
