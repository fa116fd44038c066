import Foundation
import Testing

@testable import Stash

/// A unique value finds its stored row while decoding, not only at save: the decoded
/// object is that row's object, with the stored values of every key the payload lacks.
@Suite(.bothStores) struct DecodeIdentityTests {
    @Test func aPartialPayloadForAStoredRowDecodesIntoAFreshContext() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 2, "body": "x"}"#))
        #expect(post.title == "Title 2")
        #expect(post.userId == 2)
        #expect(post.body == "x")
        #expect(!post.objectID.isTemporary)
        let fetched = try context.fetch(FetchDescriptor<Post>())
        #expect(fetched.count == 3)
        #expect(fetched.contains { $0 === post })
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT id, title, body FROM Post WHERE id = 2") == "2|Title 2|x\n")
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "3\n")
    }

    @Test func theDecodedObjectIsTheOneAFetchReturnsLater() throws {
        let (container, _) = try savedPosts(5)
        let context = ManagedObjectContext(container)
        let decoded = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5, titlePrefix: "New"))
        let fetched = try context.fetch(FetchDescriptor<Post>())
        #expect(fetched.count == 5)
        #expect(zip(decoded, fetched).allSatisfy { $0 === $1 })
        #expect(fetched.map(\.title) == (1...5).map { "New \($0)" })
    }

    @Test func keysThePayloadLacksKeepTheirStoredValuesAfterSave() throws {
        let (container, writer) = try savedPosts(2)
        let posts = try writer.fetch(FetchDescriptor<Post>())
        posts[1].read = true
        posts[1].summary = "kept"
        try writer.save()
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 2, "title": "renamed"}"#))
        #expect(post.read && post.summary == "kept")
        try context.save()
        let reread = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())[1]
        #expect(reread.title == "renamed" && reread.read && reread.summary == "kept" && reread.body.hasPrefix("Body"))
    }

    @Test func aMissingRequiredKeyIsStillAnErrorForANewObject() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        let error = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 3, "body": "x"}"#))
        }
        #expect(error?.code == .decodingFailed)
        #expect(!context.hasChanges)
    }

    @Test func storedWinsKeepsTheRowAsItIs() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        context.mergePolicy = .storedWins
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "ignored"}"#))
        #expect(post.title == "Title 1")
        #expect(!context.hasChanges)
    }

    @Test func failPolicyRejectsAStoredValueWhileDecoding() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        context.mergePolicy = .fail
        let error = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "x"}"#))
        }
        #expect(error?.code == .uniqueConflict)
        #expect(error?.attribute == "id")
    }
}

/// How decoding learns the stored rows: a bounded number of queries, kept true to the store.
@Suite(.sqliteOnly("counts the statements SQLiteStore runs")) struct StoredKeyLookupTests {
    /// Statements run on the container's connection so far.
    func statements(_ container: PersistentContainer) -> Int {
        (container.store as! SQLiteStore).statementsRun
    }

    @Test func decodingManyStoredRowsRunsAFewQueriesNotOnePerObject() throws {
        let (container, _) = try savedPosts(2000)
        let context = ManagedObjectContext(container)
        let before = statements(container)
        let start = ContinuousClock.now
        let posts = try recipeDecoder(context).decode(
            [Post].self,
            from: json("[" + (1...2000).map { #"{"id": \#($0), "read": true}"# }.joined(separator: ",") + "]"))
        // Another process's commits are asked about at most once per interval of decoding.
        let tokenChecks = Int((ContinuousClock.now - start) / StoredKeyIndex.checkInterval) + 1
        #expect(posts.count == 2000 && posts.allSatisfy { !$0.objectID.isTemporary })
        // A change token, a count and one read of the keys.
        let decoding = statements(container) - before
        #expect(decoding <= 3 + tokenChecks)
        #expect(posts[1999].title == "Title 2000")
        // The first read loads every decoded row's values: their ids are dense, so one range
        // scan (`SQLiteStore.forEachRange`), not four `IN` batches of 500.
        #expect(statements(container) - before == decoding + 1)
    }

    @Test func aBigTableIsAskedValueByValueThenReadWhole() throws {
        let count = StoredKeyIndex.loadAllBelow + 1
        let (container, _) = try savedPosts(count)
        let context = ManagedObjectContext(container)
        var before = statements(container)
        var start = ContinuousClock.now
        _ = try recipeDecoder(context).decode([Post].self, from: json(#"[{"id": 5, "read": true}, {"id": 7}]"#))
        // Token, count, then one look-up per value; on a loaded machine the decode may last
        // past a check interval, which asks for the token once more.
        let extraChecks = Int((ContinuousClock.now - start) / StoredKeyIndex.checkInterval)
        #expect((4...4 + extraChecks).contains(statements(container) - before))
        before = statements(container)
        start = ContinuousClock.now
        let many = (100...(100 + StoredKeyIndex.pointLookups)).map { #"{"id": \#($0)}"# }
        let posts = try recipeDecoder(context).decode([Post].self, from: json("[" + many.joined(separator: ",") + "]"))
        let tokenChecks = Int((ContinuousClock.now - start) / StoredKeyIndex.checkInterval) + 1
        #expect(posts.allSatisfy { !$0.objectID.isTemporary })
        // The look-ups left, then one read of every key for the rest, and a change token per
        // interval of decoding.
        #expect(statements(container) - before <= StoredKeyIndex.pointLookups - 2 + 1 + tokenChecks)
    }

    @Test func reimportingTheSamePayloadIntoAFreshContextWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(600, at: directory.file())
        let watcher = try testContainer(for: Post.self, storeURL: directory.file())
        let token = try watcher.store.changeToken()
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 600))
        #expect(context.hasChanges)  // not known to be equal until the rows are read
        try context.save()
        #expect(!context.hasChanges)
        #expect(try watcher.store.changeToken() == token)  // nothing was committed
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 600, titlePrefix: "New"))
        try context.save()
        #expect(try watcher.store.changeToken() != token)
        #expect(try sqliteShell(directory.file(), "SELECT count(*), min(title) FROM Post") == "600|New 1\n")
    }

    @Test func aRowAnotherContextDeletedIsNotFound() throws {
        let (container, writer) = try savedPosts(3)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "read": true}"#))
        writer.delete(try writer.fetch(FetchDescriptor<Post>())[1])
        try writer.save()
        // Post 2 is gone: a partial payload for it is a new object missing its keys.
        #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 2, "read": true}"#))
        }
        let again = try recipeDecoder(context).decode(
            Post.self, from: postsJSON(count: 1, firstID: 2).dropFirst().dropLast())
        #expect(again.objectID.isTemporary)
        try context.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 3)
    }

    @Test func aRowAnotherProcessInsertedIsFound() async throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([Post].self, from: json(#"[{"id": 1, "read": true}]"#))
        _ = try sqliteShellWriting(
            directory.file(), "INSERT INTO Post (id, userId, title, body, read) VALUES (50, 5, 'from python', 'b', 0)")
        // The index asks the store whether another process wrote at most this often.
        try await Task.sleep(for: StoredKeyIndex.checkInterval * 2)
        let posts = try recipeDecoder(context).decode([Post].self, from: json(#"[{"id": 50, "read": true}]"#))
        #expect(posts[0].title == "from python")
        #expect(!posts[0].objectID.isTemporary)
    }

    @Test func rollbackPutsBackWhatTheRowHolds() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 2, "title": "changed"}"#))
        #expect(post.title == "changed")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(post.title == "Title 2")
        #expect(post.body.hasPrefix("Body of post 2"))
    }

    @Test func aFailedAllOrNothingDecodeForgetsTheRowsItFound() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        #expect(throws: StashError.self) {
            _ = try context.decode(
                [Post].self, from: json(#"[{"id": 1, "title": "changed"}, {"id": "two"}]"#), using: JSONDecoder())
        }
        #expect(!context.hasChanges)
        let fetched = try context.fetch(FetchDescriptor<Post>())
        #expect(fetched.map(\.title) == ["Title 1", "Title 2"])
        try context.save()
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<Post>()).map(\.title) == ["Title 1", "Title 2"])
    }

    /// Another context's delete is the world changing, not a programming error: no trap.
    @Test func anUnloadedAttributeOfARowDeletedByAnotherContextReadsEmpty() throws {
        let (container, writer) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 2, "read": true}"#))
        writer.delete(try writer.fetch(FetchDescriptor<Post>())[1])
        try writer.save()
        #expect(post.title == "")
        #expect(post.isRowDeleted)
        #expect(post.read)
    }
}
