import Foundation
import Testing

@testable import Stash

/// When the app lets go of most of the objects an import made, the context gives back what
/// it kept for them (unique index entries, the row table's room) at its next use, and goes
/// on upserting as before: nothing it needs was dropped.
@Suite struct DepartedObjectsTests {
    @Test func anImportsBookkeepingGoesWithItsObjects() throws {
        let container = try PersistentContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let count = RegisteredObjects.compactionFloor * 3
        do {
            let posts = try context.decode([Post].self, from: postsJSON(count: count))
            try context.save()
            let state = try context.identity.state(forType: Post.self)
            #expect(state.uniqueIndexes[0].count == count)
            #expect(context.registeredObjectCount == count)
            withExtendedLifetime(posts) {}
        }
        // The objects are gone; the next entry point (this count) lets their entries go.
        #expect(context.registeredObjectCount == 0)
        let state = try context.identity.state(forType: Post.self)
        #expect(state.uniqueIndexes[0].isEmpty)
        // Upserts still find the stored rows, now through the store.
        let again = try context.decode([Post].self, from: postsJSON(count: count + 5, titlePrefix: "Again"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == count + 5)
        #expect(again.first?.title == "Again 1")
        #expect(state.uniqueIndexes[0].count == count + 5)
    }

    /// Objects the app still holds keep their entries: only the freed ones' go.
    @Test func heldObjectsKeepTheirEntries() throws {
        let container = try PersistentContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let count = RegisteredObjects.compactionFloor * 2
        var kept: [Post] = []
        do {
            let posts = try context.decode([Post].self, from: postsJSON(count: count))
            try context.save()
            kept = Array(posts.prefix(10))
        }
        #expect(context.registeredObjectCount == 10)
        let state = try context.identity.state(forType: Post.self)
        #expect(state.uniqueIndexes[0].count == 10)
        // A decode of a held object's id is that object, changed in place.
        let same = try context.decode(Post.self, from: json(#"{"id": 3, "userId": 1, "title": "New", "body": "b"}"#))
        #expect(same === kept[2])
        #expect(kept[2].title == "New")
    }

    /// A save with fewer objects than the floor never pays for a pass.
    @Test func smallContextsAreLeftAlone() throws {
        let container = try PersistentContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        do {
            _ = try context.decode([Post].self, from: postsJSON(count: 50))
            try context.save()
        }
        #expect(context.registeredObjectCount == 0)
        #expect(try context.identity.state(forType: Post.self).uniqueIndexes[0].count == 50)
    }
}
