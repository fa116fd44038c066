import Foundation
import Testing

@testable import Stash

/// A long-lived context keeps the objects its caller keeps, not every row it ever fetched.
@Suite(.bothStores) struct RegisteredObjectsTests {
    /// A store of `count` posts, and a context that has never read it.
    func store(_ count: Int) throws -> (PersistentContainer, ManagedObjectContext) {
        let (container, _) = try savedPosts(count)
        return (container, ManagedObjectContext(container))
    }

    @Test func pagingThroughTheStoreDoesNotGrowTheContext() throws {
        let (_, context) = try store(30_000)
        let kept = try #require(
            try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 12_345 })).first)
        var page = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])
        page.fetchLimit = 500
        var seen = 0
        var largest = 0
        for offset in stride(from: 0, to: 30_000, by: 500) {
            page.fetchOffset = offset
            seen += try context.fetch(page).count
            largest = max(largest, context.registeredObjectCount)
        }
        #expect(seen == 30_000)
        // Held weakly: a page the caller dropped is gone, so at most a page and the kept one.
        #expect(largest <= 501)
        // An object the caller holds stays the row's one instance.
        let again = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 12_345 }))
        #expect(again.first === kept)
    }

    @Test func changedObjectsAreNeverLetGo() throws {
        let (container, context) = try store(10_000)
        // Change every tenth post and drop every reference to it.
        for post in try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id % 10 == 0 })) {
            post.title = "edited \(post.id)"
        }
        var page = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])
        page.fetchLimit = 1_000
        for offset in stride(from: 0, to: 10_000, by: 1_000) {
            page.fetchOffset = offset
            _ = try context.fetch(page)
        }
        #expect(context.registeredObjectCount < 10_000)
        #expect(context.hasChanges)
        try context.save()
        let edited = try ManagedObjectContext(container).fetchCount(
            FetchDescriptor<Post>(predicate: #Predicate { $0.title.starts(with: "edited") }))
        #expect(edited == 1_000)
    }

    @Test func aLetGoRowIsFoundAgainByDecoding() throws {
        let (_, context) = try store(10_000)
        var page = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])
        page.fetchLimit = 2_000
        for offset in stride(from: 0, to: 10_000, by: 2_000) {
            page.fetchOffset = offset
            _ = try context.fetch(page)
        }
        // Post 1's object was let go: decoding it finds its row, not a new one.
        let decoded = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "again"}"#))
        #expect(decoded.body == "Body of post 1\nline 2")
        let fetched = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))
        #expect(fetched.count == 1)
        #expect(fetched.first === decoded)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 10_000)
    }

    /// Rows the context inserted itself, their objects let go: decoding them again finds the
    /// rows and compares, as for any stored row (they were once rewritten, all 5,000, and
    /// reported updated).
    @Test func rowsTheContextInsertedAreComparedWhenDecodedAgain() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5_000))
        try context.save()
        // Enough new objects that the first 5,000, held by no one, are let go.
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5_000, firstID: 10_001))
        try context.save()
        #expect(context.identity.state(for: try EntityRegistry.shared.entity(for: Post.self)).byRowID[1] == nil)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5_000))
        #expect(try context.saveChanges().isEmpty)
        let changed = try recipeDecoder(context).decode(
            Post.self, from: json(#"{"id": 7, "userId": 0, "title": "changed", "body": "b"}"#))
        #expect(try context.saveChanges().updated == [changed.objectID])
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 10_000)
    }

    /// A deleted row's id is not given to the next new row (keys are `AUTOINCREMENT`; SQLite's
    /// plain rowid gave it again), and the index, which had learned that id as deleted, finds
    /// the new row by its value.
    @Test func aDeletedRowsIdIsNotTakenAgainAndTheNewRowIsFoundByItsValue() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 2))
        try context.save()
        // A new value: the index reads the rows it has not seen.
        let fifth = try recipeDecoder(context).decode(
            Post.self, from: postsJSON(count: 1, firstID: 5).dropFirst().dropLast())
        try context.save()
        context.delete(fifth)
        try context.save()
        let sixth = try recipeDecoder(context).decode(
            Post.self, from: postsJSON(count: 1, firstID: 6).dropFirst().dropLast())
        try context.save()
        #expect(fifth.objectID.rowID == 3)
        #expect(sixth.objectID.rowID == 4)  // not the deleted row's 3
        _ = context.detach([sixth]) { _, _ in true }  // the context lets go of its object
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 6))
        #expect(try context.saveChanges().isEmpty)
    }

    /// A row moved to another unique value: its old value names no row any more.
    @Test func aRowsOldValueNamesItNoMore() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let posts = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 2))
        try context.save()
        // A new value: the index reads the rows it has not seen, post 1's among them.
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 9))
        try context.save()
        posts[0].id = 50
        try context.save()
        _ = context.detach([posts[0]]) { _, _ in true }  // the context lets go of its object
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1))
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.id) == [1, 2, 9, 50])
    }

    /// Objects whose last reference goes on another thread leave the context's table as they
    /// are freed, while the context reads it: the table holds them without a count, so the
    /// freeing thread takes their entries out (under ThreadSanitizer in CI), and a look-up
    /// never hands out an object being freed.
    @Test func objectsFreedOnAnotherThreadLeaveTheContextWhileItReads() async throws {
        let (_, context) = try store(2_000)
        var page = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])
        page.fetchLimit = 100
        for round in 0..<20 {
            page.fetchOffset = round * 100
            let batch = try context.fetch(page)
            let ids = batch.map(\.id)
            // The batch goes to a task, which lets it go there.
            let freeing = Task.detached { batch.count }
            var again = page
            again.fetchOffset = (round * 100 + 1_000) % 2_000
            for _ in 0..<5 {
                #expect(try context.fetch(again).count == 100)
                #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 7 })).count == 1)
            }
            #expect(await freeing.value == 100)
            // The rows are found again, as new objects or as ones still alive: never as freed ones.
            let refetched = try context.fetch(page)
            #expect(refetched.map(\.id) == ids)
        }
        // Only what the last loops still hold can be left.
        #expect(context.registeredObjectCount <= 300)
    }
}
