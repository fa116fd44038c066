import Foundation
import Stash
import Testing

/// Bad payloads get errors that say what and where, and nothing is half-saved.
@Suite(.bothStores) struct DecodingErrorTests {
    @Test func missingRequiredKeyNamesEntityAttributeAndPath() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let payload = json(
            #"[{"id": 1, "userId": 1, "title": "a", "body": "b"}, {"id": 2, "userId": 1, "body": "no title"}]"#)
        let error = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode([Post].self, from: payload)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "Post")
        #expect(error?.attribute == "title")
        #expect(error?.codingPath == "[1].title")
        #expect(error.map { "\($0)" }?.contains("Post.title at [1].title") == true)
    }

    @Test func wrongTypeNamesThePath() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let payload = json(
            #"{"items": [{"id": 1, "userId": 1, "title": "a", "body": "b"}, {"id": 2, "userId": "x", "title": "c", "body": "d"}]}"#
        )
        struct Page: Decodable { let items: [Post] }
        let error = #expect(throws: StashError.self) { _ = try recipeDecoder(context).decode(Page.self, from: payload) }
        #expect(error?.attribute == "userId")
        #expect(error?.codingPath == "items[1].userId")
    }

    @Test func failedObjectIsNotInsertedAndAFailedDecodeSavesNothingOfItself() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let payload = json(
            #"[{"id": 1, "userId": 1, "title": "a", "body": "b"}, {"id": 2, "userId": 1, "title": 3, "body": "d"}]"#)
        #expect(throws: StashError.self) { _ = try recipeDecoder(context).decode([Post].self, from: payload) }
        // The object that failed is not in the context; the one before it is, as JSONDecoder
        // decoded it, and rollback() drops it.
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 1)
        context.rollback()
        #expect(!context.hasChanges)
        try context.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 0)
    }

    @Test func failedUpdateLeavesTheExistingObjectAsItWas() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let post = try recipeDecoder(context).decode(
            Post.self, from: json(#"{"id": 1, "userId": 1, "title": "a", "body": "b"}"#))
        try context.save()
        #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "new", "userId": "bad"}"#))
        }
        #expect(post.title == "a")
        #expect(!context.hasChanges)
    }

    @Test func malformedJSONIsRejected() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        #expect(throws: DecodingError.self) {
            _ = try recipeDecoder(context).decode([Post].self, from: json(#"[{"id": 1, "title": "a"#))
        }
        #expect(!context.hasChanges)
    }

    @Test func requiredAttributeNeverSetFailsTheSaveAndWritesNothing() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let complete = Post(context: context)
        complete.id = 1
        complete.userId = 1
        complete.title = "t"
        complete.body = "b"
        let incomplete = Post(context: context)
        incomplete.id = 2
        incomplete.userId = 1
        incomplete.body = "b"
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .missingValue)
        #expect(error?.entity == "Post")
        #expect(error?.attribute == "title")
        #expect(context.hasChanges)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 0)
        incomplete.title = "now set"
        try context.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 2)
    }

    @Test func constraintFailureRollsBackTheWholeSave() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>())
        posts[0].title = "changed"
        posts[1].id = 1  // collides with posts[0] at the unique index
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .storeFailed)
        #expect(error?.entity == "Post")
        #expect(error?.storeCode?.isUniqueViolation == true)  // SQLite's 2067, PostgreSQL's 23505
        #expect(context.hasChanges)
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())
        #expect(stored.map(\.title) == ["Title 1", "Title 2"])
        #expect(stored.map(\.id) == [1, 2])
    }
}

/// `context.decode(_:from:using:)`: all or nothing.
@Suite(.bothStores) struct AtomicDecodeTests {
    @Test func aFailedDecodeLeavesTheContextAsItWas() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = try context.decode([Post].self, from: postsJSON(count: 3))
        try context.save()
        first[0].read = true  // an unsaved local change that must survive

        // Updates post 2, inserts post 4, then fails on the third element.
        let payload = json(
            #"[{"id": 2, "title": "changed"}, {"id": 4, "userId": 1, "title": "new", "body": "b"},"#
                + #" {"id": 5, "userId": "not a number", "title": "x", "body": "y"}]"#)
        let error = #expect(throws: StashError.self) { _ = try context.decode([Post].self, from: payload) }
        #expect(error?.codingPath == "[2].userId")
        #expect(first[1].title == "Title 2")
        #expect(!first[1].hasChanges)
        #expect(first[0].read)
        #expect(try context.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 2, 3])
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())
        #expect(stored.map(\.title) == ["Title 1", "Title 2", "Title 3"])
        #expect(stored.map(\.read) == [true, false, false])
    }

    @Test func theDecoderKeepsItsOwnUserInfo() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let posts = try context.decode(
            [Post].self, from: json(#"[{"id": 1, "user_id": 7, "title": "t", "body": "b"}]"#), using: decoder)
        #expect(posts[0].userId == 7)
        #expect(decoder.userInfo[.managedObjectContext] == nil)
    }
}
