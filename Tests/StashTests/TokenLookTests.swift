import Foundation
import Testing

@testable import Stash

/// A fetch's look at the change token (`TokenLook`): taken once the read has begun, and the
/// token read only when the reading connection found a commit since its last look. Every
/// commit by another process is still seen, by every context of the container.
@Suite struct TokenLookTests {
    /// Fetches with no commit between them read the token once; a commit by another process,
    /// or by the container's own save, makes the next fetch read it again, once.
    @Test func theTokenIsReadOnlyAfterACommit() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(3, at: directory.file())
        let store = try #require(container.store as? SQLiteStore)
        let post = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0]
        let reads = store.tokenReads
        for id in [1, 2, 3, 1] {
            #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == id })).count == 1)
        }
        #expect(store.tokenReads == reads)

        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell' WHERE id = 1")
        #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0] === post)
        #expect(post.title == "shell")
        #expect(store.tokenReads == reads + 1)
        _ = try context.fetch(FetchDescriptor<Post>())
        #expect(store.tokenReads == reads + 1)

        post.summary = "mine"
        try context.save()
        let afterSave = store.tokenReads
        _ = try context.fetch(FetchDescriptor<Post>())
        _ = try context.fetch(FetchDescriptor<Post>())
        #expect(store.tokenReads == afterSave + 1)
        #expect(post.summary == "mine" && !context.hasChanges)
    }

    /// Another context of the container looked at the token after another process
    /// committed; the first context's next fetch reads no token, and still takes the new row
    /// into the object it holds: the count it compares with is the container's.
    @Test func aCommitAnotherContextLookedAtFirstIsSeen() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let post = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0]
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell' WHERE id = 1")
        let other = ManagedObjectContext(container)
        #expect(try other.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0].title == "shell")
        let store = try #require(container.store as? SQLiteStore)
        let reads = store.tokenReads
        #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0] === post)
        #expect(store.tokenReads == reads)
        #expect(post.title == "shell")
    }

    /// Two readers: one looked before another process committed, the other after. Each
    /// reader's next fetch finds the file changed since its own last look and reads the token,
    /// and the object takes the new row whichever reader read it.
    @Test func eachReaderFindsACommitSinceItsOwnLastLook() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let store = try #require(container.store as? SQLiteStore)
        let one = FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 })
        // Two readers in the pool; the fetch below takes the one given back last.
        let held = try store.withReader { outer in try store.withReader { inner in (outer, inner) } }
        #expect(held.0 !== held.1)
        let post = try context.fetch(one)[0]
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'first' WHERE id = 1")
        // With the reader that looked lent out, the fetch reads through the other one, which
        // never looked: it reads the token and counts the commit.
        var first: SQLiteConnection?
        try store.withReader { lent in
            first = lent
            let found = try context.fetch(one)[0]
            #expect(found === post)
        }
        #expect(post.title == "first")
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'second' WHERE id = 1")
        let reads = store.tokenReads
        // The first reader: two commits since its look.
        #expect(try context.fetch(one)[0] === post)
        #expect(post.title == "second")
        #expect(store.tokenReads == reads + 1)
        // The other reader: one commit since its look, which the first reader's look counted;
        // it reads the token, and the row once.
        try store.withReader { lent in
            #expect(lent === first)
            let found = try context.fetch(one)[0]
            #expect(found.title == "second")
        }
        #expect(store.tokenReads == reads + 2)
        // Nothing since either look: no token.
        #expect(try context.fetch(one)[0].title == "second")
        try store.withReader { _ in
            let found = try context.fetch(one)[0]
            #expect(found.title == "second")
        }
        #expect(store.tokenReads == reads + 2)
    }

    /// A commit that lands after the read began and before the token is read: the look
    /// counts it, so the store reads the rows again, as of after it. Without that, the
    /// object would take rows older than the count it is marked with, and keep them.
    @Test func aCommitDuringTheLookIsReadAgain() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(2, at: directory.file())
        let store = try #require(container.store as? SQLiteStore)
        let entity = try container.entity(for: Post.self)
        let title = try #require(entity.attributes.firstIndex { $0.name == "title" })
        for readAgain in [false, true] {
            var titles: [StoredValue] = []
            var looks: [Int64?] = []
            try store.fetch(StoreQuery(entity.schema)) { token in
                looks.append(token)
                _ = try sqliteShellWriting(
                    directory.file(), "UPDATE Post SET title = 'during \(readAgain)' WHERE id = 1")
                return readAgain
            } _: { row in
                titles.append(row.value(title))
            }
            // The reader's first look, and one after a commit: the token is read.
            #expect(looks.count == 1 && looks[0] != nil)
            let first: StoredValue = readAgain ? .text("during true") : .text("Title 1")
            #expect(titles == [first, .text("Title 2")])
        }
    }

    /// The context's look: a token that moved is a commit counted now, which the rows may
    /// predate; `nil` leaves the count the container had.
    @Test func theContextAsksForARereadWhenTheCountMoved() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(1, at: directory.file())
        let counted = container.externalCommitsCounted
        #expect(!context.lookForExternalCommits(at: nil, countedBefore: counted))
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell' WHERE id = 1")
        #expect(context.lookForExternalCommits(at: try container.store.changeToken(), countedBefore: counted))
        #expect(context.externalCommitsSeen == counted + 1)
        #expect(!context.lookForExternalCommits(at: try container.store.changeToken(), countedBefore: counted + 1))
    }
}
