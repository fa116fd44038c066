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
}
