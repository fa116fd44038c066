import Foundation
import Stash
import TestProcesses
import Testing

/// A save in one context reaches the others of its container; what changed elsewhere is
/// merged by the merge policy, never lost unnoticed.
@Suite(.bothStores) struct MergeTests {
    /// Posts 1…3 in a file store, and two fresh contexts on it.
    func twoContexts() throws -> (TemporaryDirectory, PersistentContainer, ManagedObjectContext, ManagedObjectContext) {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        return (directory, container, ManagedObjectContext(container), ManagedObjectContext(container))
    }

    @Test func anotherContextsSaveIsMergedAtTheNextCall() throws {
        let (_, _, a, b) = try twoContexts()
        let mine = try a.fetch(FetchDescriptor<Post>())[0]
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "from b"
        try b.save()
        let again = try a.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.title == "from b" }))
        #expect(again.count == 1 && again[0] === mine)
        #expect(mine.title == "from b" && !a.hasChanges)
    }

    @Test func changesToDifferentAttributesBothSurvive() throws {
        let (directory, _, a, b) = try twoContexts()
        let mine = try a.fetch(FetchDescriptor<Post>())[0]
        mine.body = "body from a"
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "title from b"
        try b.save()
        try a.save()
        #expect(mine.title == "title from b" && mine.body == "body from a")
        #expect(
            try sqliteShell(directory.file(), "SELECT title, body FROM Post WHERE id = 1")
                == "title from b|body from a\n")
    }

    @Test func theSameAttributeFollowsTheMergePolicy() throws {
        for policy in [MergePolicy.incomingWins, .storedWins, .fail] {
            let (directory, _, a, b) = try twoContexts()
            a.mergePolicy = policy
            let mine = try a.fetch(FetchDescriptor<Post>())[0]
            mine.title = "from a"
            let theirs = try b.fetch(FetchDescriptor<Post>())[0]
            theirs.title = "from b"
            try b.save()
            switch policy {
            case .incomingWins:
                try a.save()
                #expect(try sqliteShell(directory.file(), "SELECT title FROM Post WHERE id = 1") == "from a\n")
            case .storedWins:
                #expect(!a.hasChanges)  // merged: the store's value won at once
                #expect(mine.title == "from b")
                try a.save()
                #expect(try sqliteShell(directory.file(), "SELECT title FROM Post WHERE id = 1") == "from b\n")
            default:
                let error = #expect(throws: StashError.self) { try a.save() }
                #expect(error?.code == .conflict && error?.entity == "Post" && error?.attribute == "title")
                #expect(error?.message.contains("row 1") == true)
                #expect(a.hasChanges)
                #expect(try sqliteShell(directory.file(), "SELECT title FROM Post WHERE id = 1") == "from b\n")
            }
        }
    }

    @Test func anotherProcesssChangeIsCaughtAtSave() throws {
        for policy in [MergePolicy.storedWins, .fail] {
            let (directory, _, a, _) = try twoContexts()
            a.mergePolicy = policy
            let mine = try a.fetch(FetchDescriptor<Post>())[0]
            _ = try sqliteShellWriting(
                directory.file(), "UPDATE Post SET title = 'from python', body = 'b' WHERE id = 1")
            mine.title = "from a"
            mine.read = true
            if policy == .fail {
                let error = #expect(throws: StashError.self) { try a.save() }
                #expect(error?.code == .conflict && error?.attribute == "title")
                #expect(
                    try sqliteShell(directory.file(), "SELECT title, read FROM Post WHERE id = 1") == "from python|0\n")
            } else {
                try a.save()
                #expect(mine.title == "from python" && mine.read)
                #expect(
                    try sqliteShell(directory.file(), "SELECT title, read FROM Post WHERE id = 1") == "from python|1\n")
            }
        }
    }

    @Test func aRowAnotherContextDeletedLeavesThisOne() throws {
        let (_, _, a, b) = try twoContexts()
        let mine = try a.fetch(FetchDescriptor<Post>())[1]
        b.delete(try b.fetch(FetchDescriptor<Post>())[1])
        try b.save()
        #expect(try a.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 3])
        #expect(a.registeredObject(for: mine.objectID) == nil)
        #expect(throws: StashError.self) { _ = try a.existingObject(with: mine.objectID) }
        // A change to it is not lost without a word.
        mine.title = "edited after b deleted it"
        let error = #expect(throws: StashError.self) { try a.save() }
        #expect(error?.code == .rowMissing)
    }

    @Test func objectIDsCrossContexts() async throws {
        let (_, container, a, _) = try twoContexts()
        let background = container.newBackgroundContext()
        let ids = try await background.perform {
            let posts = try recipeDecoder(background).decode([Post].self, from: postsJSON(count: 2, firstID: 10))
            try background.save()
            return posts.map(\.objectID)
        }
        let posts = try ids.map { try a.existingObject(with: $0) as! Post }
        #expect(posts.map(\.id) == [10, 11])
        #expect(a.registeredObject(for: ids[0]) === posts[0])
        let temporary = await background.perform { Post(context: background).objectID }
        let error = #expect(throws: StashError.self) { _ = try a.existingObject(with: temporary) }
        #expect(error?.message.contains("not saved yet") == true)
    }

    @Test func refreshTakesTheStoredValues() throws {
        let (directory, _, a, _) = try twoContexts()
        a.automaticallyMergesChanges = false
        let post = try a.fetch(FetchDescriptor<Post>())[0]
        post.body = "local"
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'elsewhere' WHERE id = 1")
        a.refresh(post, mergeChanges: true)
        #expect(post.title == "elsewhere" && post.body == "local" && a.hasChanges)
        a.refresh(post, mergeChanges: false)
        #expect(post.title == "elsewhere" && post.body.hasPrefix("Body of post 1") && !a.hasChanges)
    }

    @MainActor
    @Test func theMainContextMergesBackgroundSavesItself() async throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        let post = try container.mainContext.fetch(FetchDescriptor<Post>())[2]
        try await container.performBackgroundTask { context in
            let theirs = try context.fetch(FetchDescriptor<Post>())[2]
            theirs.title = "from the background"
            try context.save()
        }
        // No call into the main context: the merge comes to it.
        _ = await eventually { post.title == "from the background" }
        #expect(post.title == "from the background")
    }
}
