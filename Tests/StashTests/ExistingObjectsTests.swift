import Foundation
import Testing

@testable import Stash

/// `existingObjects(with:)`: IDs in any order, of several entities, repeated, some held and
/// some read, some whose rows are gone; each answer in the IDs' order, one object per row.
@Suite struct ExistingObjectsTests {
    /// Six posts and three notes saved, their IDs, and a context that holds none of them.
    private func saved() throws -> (TemporaryDirectory, PersistentContainer, posts: [ObjectID], notes: [ObjectID]) {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Post.self, Note.self, storeURL: directory.file())
        let writer = ManagedObjectContext(container)
        let posts = (1...6).map { id in
            let post = Post(context: writer)
            post.id = id
            post.userId = 1
            post.title = "post \(id)"
            post.body = ""
            return post
        }
        let notes = (1...3).map { number in
            let note = Note(context: writer)
            note.text = "note \(number)"
            return note
        }
        try writer.save()
        return (directory, container, posts.map(\.objectID), notes.map(\.objectID))
    }

    @Test func anyOrderAnyMixInTheIDsOrder() throws {
        let (directory, container, posts, notes) = try saved()
        let context = ManagedObjectContext(container)
        let held = try context.existingObject(with: posts[2]) as! Post
        let asked = [posts[5], notes[1], posts[0], posts[2], notes[0], posts[5], posts[3], notes[1]]
        let objects = try context.existingObjects(with: asked)
        #expect(objects.map(\.objectID) == asked)
        #expect(objects[3] === held)
        // The same row twice is the same object.
        #expect(objects[0] === objects[5] && objects[1] === objects[7])
        #expect(objects.compactMap { ($0 as? Post)?.title } == ["post 6", "post 1", "post 3", "post 6", "post 4"])
        #expect(objects.compactMap { ($0 as? Note)?.text } == ["note 2", "note 1", "note 2"])
        // Asked again, nothing is read: every object is held.
        let store = container.store as! SQLiteStore
        let before = store.statementsRun
        let again = try context.existingObjects(with: asked.reversed())
        #expect(store.statementsRun == before)
        #expect(zip(again, objects.reversed()).allSatisfy { $0 === $1 })
        _ = directory
    }

    @Test func goneRowsAreLeftOut() throws {
        let (directory, container, posts, _) = try saved()
        let other = ManagedObjectContext(container)
        other.delete(try other.existingObject(with: posts[1]))
        other.delete(try other.existingObject(with: posts[4]))
        try other.save()
        let context = ManagedObjectContext(container)
        let asked = [posts[4], posts[0], posts[1], posts[5], posts[1]]
        let objects = try context.existingObjects(with: asked).map { $0 as! Post }
        #expect(objects.map(\.id) == [1, 6])
        _ = directory
    }

    @Test func anotherContainersEntityOrAnUnsavedObjectIsAnError() throws {
        let (directory, container, posts, _) = try saved()
        let context = ManagedObjectContext(container)
        let unknown = ObjectID(entityName: "Tag", rowID: 1, temporaryID: 0)
        let error = #expect(throws: StashError.self) { try context.existingObjects(with: [posts[0], unknown]) }
        #expect(error?.code == .unknownEntity && error?.entity == "Tag")
        let elsewhere = ManagedObjectContext(container)
        let unsaved = Post(context: elsewhere)
        let missing = #expect(throws: StashError.self) { try context.existingObjects(with: [unsaved.objectID]) }
        #expect(missing?.code == .rowMissing)
        // Its own unsaved object is found.
        let mine = Post(context: context)
        #expect(try context.existingObjects(with: [mine.objectID, posts[0]]).first === mine)
        _ = directory
    }
}
