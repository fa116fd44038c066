import Foundation
import Stash
import Testing

/// Identity, change tracking, deletion and rollback.
@Suite(.bothStores) struct ContextTests {
    @Test func fetchingTwiceReturnsTheSameInstances() throws {
        let (container, _) = try savedPosts(10)
        let context = ManagedObjectContext(container)
        let first = try context.fetch(FetchDescriptor<Post>())
        let second = try context.fetch(FetchDescriptor<Post>())
        #expect(first.count == 10)
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        let other = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())
        #expect(!zip(first, other).contains { $0 === $1 })
        #expect(first.map(\.objectID) == other.map(\.objectID))
    }

    @Test func savedObjectsAreTheInstancesFetchedLater() throws {
        let (_, context) = try savedPosts(3)
        let fetched = try context.fetch(FetchDescriptor<Post>())
        let decodedAgain = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
        #expect(zip(fetched, decodedAgain).allSatisfy { $0 === $1 })
    }

    @Test func hasChangesTellsTheTruth() throws {
        let (_, context) = try savedPosts(2)
        #expect(!context.hasChanges)
        let posts = try context.fetch(FetchDescriptor<Post>())
        #expect(!context.hasChanges)
        posts[0].title = "edited"
        #expect(context.hasChanges && posts[0].hasChanges && !posts[1].hasChanges)
        try context.save()
        #expect(!context.hasChanges && !posts[0].hasChanges)
        context.delete(posts[1])
        #expect(context.hasChanges && posts[1].isDeleted)
        try context.save()
        #expect(!context.hasChanges)
        let note = Post(context: context)
        #expect(context.hasChanges && note.isInserted)
        context.delete(note)
        #expect(!context.hasChanges)
    }

    @Test func deleteRemovesTheRow() throws {
        let directory = try TemporaryDirectory()
        let (_, context) = try savedPosts(3, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>())
        context.delete(posts[1])
        #expect(try context.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 3])
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 2)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "3\n")
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT group_concat(id) FROM Post") == "1,3\n")
        #expect(posts[1].managedObjectContext == nil)
        // Decoding id 2 again inserts a new row.
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 2))
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "3\n")
    }

    @Test func rollbackDropsUnsavedChanges() throws {
        let (container, context) = try savedPosts(3)
        let posts = try context.fetch(FetchDescriptor<Post>())
        posts[0].title = "edited"
        posts[0].read = true
        context.delete(posts[1])
        let extra = Post(context: context)
        extra.id = 99
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 3, titlePrefix: "New"))
        #expect(posts[2].title == "New 3")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(posts[0].title == "Title 1" && !posts[0].read)
        #expect(!posts[1].isDeleted)
        #expect(posts[2].title == "Title 3")
        #expect(extra.managedObjectContext == nil)
        #expect(try context.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 2, 3])
        try context.save()
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<Post>()).map(\.title) == [
                "Title 1", "Title 2", "Title 3",
            ])
        // The unique index follows the rollback: id 1 is still posts[0].
        let again = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "x"}"#))
        #expect(again === posts[0])
    }

    @Test func changingAUniqueValueMovesTheIndexEntry() throws {
        let (_, context) = try savedPosts(2)
        let posts = try context.fetch(FetchDescriptor<Post>())
        posts[0].id = 10
        try context.save()
        let ten = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 10, "title": "ten"}"#))
        #expect(ten === posts[0])
        let one = try recipeDecoder(context).decode(
            Post.self, from: json(#"{"id": 1, "userId": 0, "title": "one", "body": ""}"#))
        #expect(one !== posts[0])
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Post>()).map(\.id) == [10, 2, 1])
    }

    @Test func fetchCountCountsWithoutLoading() throws {
        let (container, _) = try savedPosts(25)
        let context = ManagedObjectContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 25)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 10, firstID: 20))
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 29)
    }

    @Test func limitOffsetPredicateAndSort() throws {
        let (container, _) = try savedPosts(20)
        let context = ManagedObjectContext(container)
        var page = FetchDescriptor<Post>()
        page.fetchLimit = 5
        page.fetchOffset = 10
        #expect(try context.fetch(page).map(\.id) == Array(11...15))

        var userThree = FetchDescriptor<Post>(
            predicate: #Predicate { $0.userId == 3 }, sortBy: [SortDescriptor(\.id, order: .reverse)])
        #expect(try context.fetch(userThree).map(\.id) == [17, 10, 3])
        #expect(try context.fetchCount(userThree) == 3)
        userThree.fetchLimit = 2
        #expect(try context.fetch(userThree).map(\.id) == [17, 10])
    }

    @Test func objectIDsAreSendableIdentities() throws {
        let (_, context) = try savedPosts(1)
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        #expect(post.objectID.entityName == "Post")
        #expect(post.objectID.description == "Post/\(post.objectID.rowID!)")
        let fresh = Post(context: context)
        #expect(fresh.objectID.isTemporary)
        #expect(fresh.objectID != Post(context: context).objectID)
    }

    @Test func contextsWorkFromConcurrentTasks() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in 0..<4 {
                group.addTask {
                    let context = ManagedObjectContext(container)
                    _ = try recipeDecoder(context).decode(
                        [Post].self, from: postsJSON(count: 50, firstID: batch * 50 + 1))
                    try context.save()
                }
            }
            try await group.waitForAll()
        }
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 200)
    }

    @Test func modelsOutsideTheContainerAreAnError() throws {
        let context = ManagedObjectContext(try testContainer(for: Note.self, inMemory: true))
        let error = #expect(throws: StashError.self) { _ = try context.fetch(FetchDescriptor<Post>()) }
        #expect(error?.code == .unknownEntity)
        #expect(error?.entity == "Post")
    }
}

/// Misuse traps with a message that names the entity and attribute.
@Suite(.bothStores) struct ProgrammingErrorTests {
    @Test func readingARequiredAttributeBeforeItIsSetTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let post = Post()
            _ = post.title
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Post.title was read before it was set"))
    }

    @Test func unsetOptionalsReadAsNil() {
        let post = Post()
        #expect(post.summary == nil)
        #expect(post.read == false)
    }
}

/// Objects made outside a context, with a model's own initializer.
@Suite(.bothStores) struct TransientObjectTests {
    @Test func anObjectMadeOutsideAContextIsSavedOnceInserted() throws {
        let context = ManagedObjectContext(try testContainer(for: Tag.self, inMemory: true))
        let tag = Tag(name: "swift", uses: 3)
        #expect(tag.managedObjectContext == nil && !context.hasChanges)
        context.insert(tag)
        #expect(tag.isInserted)
        try context.save()
        let stored = try ManagedObjectContext(context.container).fetch(FetchDescriptor<Tag>())
        #expect(stored.map(\.name) == ["swift"] && stored.map(\.uses) == [3])
        // The same unique value inserted again merges into the saved object.
        context.insert(Tag(name: "swift", uses: 4))
        try context.save()
        #expect(tag.uses == 4)
        #expect(try context.fetchCount(FetchDescriptor<Tag>()) == 1)
    }
}

/// Which objects a save writes belongs to the context, not to the object.
@Suite(.bothStores) struct ContextQueueTests {
    @Test func anObjectDroppedFromOneContextAndInsertedIntoAnotherIsSavedByTheSecond() throws {
        let container = try testContainer(for: Note.self, inMemory: true)
        let first = ManagedObjectContext(container)
        let second = ManagedObjectContext(container)
        let note = Note(context: first)
        note.text = "moved"
        first.delete(note)
        second.insert(note)
        #expect(!first.hasChanges)
        #expect(second.hasChanges)
        try first.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
        try second.save()
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<Note>()).map(\.text) == ["moved"])
        #expect(note.managedObjectContext === second && !note.objectID.isTemporary)
    }
}
