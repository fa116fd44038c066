import Foundation
import Stash
import Testing

@Suite(.bothStores) struct UpsertTests {
    @Test func reimportKeepsRowCountAndUpdatesValues() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(30, at: directory.file())

        let second = ManagedObjectContext(container)
        let changed = postsJSON(count: 30, titlePrefix: "Changed")
        _ = try recipeDecoder(second).decode([Post].self, from: changed)
        try second.save()

        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "30\n")
        let third = ManagedObjectContext(container)
        let posts = try third.fetch(FetchDescriptor<Post>())
        #expect(posts.count == 30)
        #expect(posts.map(\.title) == (1...30).map { "Changed \($0)" })
    }

    @Test func duplicatesInOnePayloadEndAsOne() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let payload = json(
            #"[{"id": 7, "userId": 1, "title": "first", "body": "a"},"#
                + #" {"id": 8, "userId": 1, "title": "other", "body": "b"},"#
                + #" {"id": 7, "userId": 2, "title": "second", "body": "c"}]"#)
        let posts = try recipeDecoder(context).decode([Post].self, from: payload)
        #expect(posts[0] === posts[2])
        #expect(posts[0].title == "second")
        #expect(posts[0].userId == 2)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 2)
    }

    @Test func absentKeysKeepStoredValuesOnUpdate() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(
            Post.self, from: json(#"{"id": 1, "userId": 1, "title": "t", "body": "b", "summary": "kept"}"#))
        post.read = true
        try context.save()

        // A later payload without `read` or `summary`, decoded in a fresh context.
        let later = ManagedObjectContext(container)
        let updated = try recipeDecoder(later).decode(
            Post.self, from: json(#"{"id": 1, "userId": 1, "title": "new title", "body": "b"}"#))
        #expect(updated.read == true)  // the row's object: its stored value, since the JSON had none
        try later.save()
        #expect(updated.read == true)
        #expect(updated.summary == "kept")
        #expect(updated.title == "new title")
        let fresh = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())
        #expect(fresh.count == 1)
        #expect(fresh[0].read && fresh[0].title == "new title" && fresh[0].summary == "kept")
    }

    @Test func explicitNullClearsAnOptional() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let decoder = recipeDecoder(context)
        let post = try decoder.decode(
            Post.self, from: json(#"{"id": 1, "userId": 1, "title": "t", "body": "b", "summary": "s"}"#))
        try context.save()
        _ = try decoder.decode(Post.self, from: json(#"{"id": 1, "summary": null}"#))
        #expect(post.summary == nil)
        #expect(post.title == "t")
        try context.save()
        #expect(try ManagedObjectContext(context.container).fetch(FetchDescriptor<Post>())[0].summary == nil)
    }

    @Test func decodingMatchesObjectsFetchedEarlier() throws {
        let (container, _) = try savedPosts(3)
        let reader = ManagedObjectContext(container)
        let fetched = try reader.fetch(FetchDescriptor<Post>())
        let decoded = try recipeDecoder(reader).decode([Post].self, from: postsJSON(count: 3, titlePrefix: "New"))
        #expect(zip(fetched, decoded).allSatisfy { $0 === $1 })
        #expect(reader.hasChanges)
        try reader.save()
        #expect(try reader.fetchCount(FetchDescriptor<Post>()) == 3)
    }

    @Test func fetchBeforeSaveAdoptsTheStoredRow() throws {
        let (container, _) = try savedPosts(2)

        let context = ManagedObjectContext(container)
        let decoded = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3, titlePrefix: "New"))
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
        let fetched = try context.fetch(FetchDescriptor<Post>())
        #expect(fetched.count == 3)
        #expect(fetched.contains { $0 === decoded[0] })
        #expect(decoded[0].objectID.rowID != nil)
        #expect(decoded[2].objectID.isTemporary)
        try context.save()
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<Post>()).map(\.title) == [
                "New 1", "New 2", "New 3",
            ])
    }

    @Test func storedWinsKeepsTheStoredValues() throws {
        let (container, _) = try savedPosts(2)

        let context = ManagedObjectContext(container)
        context.mergePolicy = .storedWins
        let decoded = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3, titlePrefix: "New"))
        try context.save()
        #expect(decoded.map(\.title) == ["Title 1", "Title 2", "New 3"])
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())
        #expect(stored.map(\.title) == ["Title 1", "Title 2", "New 3"])
    }

    @Test func failPolicyRejectsATakenValueAndWritesNothing() throws {
        let (container, _) = try savedPosts(2)

        let context = ManagedObjectContext(container)
        context.mergePolicy = .fail
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 3))
        // Decoding finds the stored row for id 2 at once.
        let whileDecoding = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 2))
        }
        #expect(whileDecoding?.code == .uniqueConflict)
        #expect(whileDecoding?.entity == "Post" && whileDecoding?.attribute == "id")
        #expect(whileDecoding?.codingPath == "[0]")
        // An object made in code with a stored value is caught by the save, which writes nothing.
        let made = Post(context: context)
        made.id = 2
        made.userId = 0
        made.title = "made"
        made.body = ""
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .uniqueConflict)
        #expect(error?.entity == "Post")
        #expect(error?.attribute == "id")
        #expect(context.hasChanges)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 2)

        let inPayload = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 3))
        }
        #expect(inPayload?.code == .uniqueConflict)
    }

    @Test func modelsWithoutUniqueAttributesAlwaysInsert() throws {
        let context = ManagedObjectContext(try testContainer(for: Note.self, inMemory: true))
        let payload = json(#"[{"text": "a"}, {"text": "a", "pinned": true}]"#)
        _ = try recipeDecoder(context).decode([Note].self, from: payload)
        _ = try recipeDecoder(context).decode([Note].self, from: payload)
        try context.save()
        let notes = try context.fetch(FetchDescriptor<Note>())
        #expect(notes.count == 4)
        #expect(notes.map(\.pinned) == [false, true, false, true])
    }
}
