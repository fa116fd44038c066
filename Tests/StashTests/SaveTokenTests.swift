import Foundation
import Testing

@testable import Stash

/// The change token a save leaves its context at is the store's token right after the
/// commit (on PostgreSQL the count before it plus one, not read again), and the commit is
/// the container's own: the next look does not count it as another process's.
@Suite(.bothStores) struct SaveTokenTests {
    @Test func aSaveKnowsTheTokenItsCommitLeft() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(3, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        let seen = try container.externalCommitCount()
        for round in 1...3 {
            let before = try container.store.changeToken()
            posts[round - 1].title = "round \(round)"
            try context.save()
            let after = try container.store.changeToken()
            #expect(after != before)
            #expect(context.lastSave?.token == after)
            #expect(try container.externalCommitCount() == seen)
        }
        // Another process's commit still counts, once.
        _ = try sqliteShellWriting(directory.file(), #"UPDATE "Post" SET "title" = 'shell' WHERE "id" = 3"#)
        #expect(try container.externalCommitCount() == seen + 1)
        let again = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(again.map(\.title) == ["round 1", "round 2", "shell"])
    }

    /// A transaction that writes no row leaves the token where it was, and the store says
    /// so: PostgreSQL rolls back its count's raise, SQLite's file does not change.
    @Test func aSaveThatWritesNothingKnowsTheTokenStayed() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(1, at: directory.file())
        let before = try container.store.changeToken()
        let result = try container.store.save(StoreChangeSet())
        #expect(result.tokens.beforeCommit == before)
        #expect(result.tokens.afterCommit == before)
        #expect(try container.store.changeToken() == before)
    }
}
