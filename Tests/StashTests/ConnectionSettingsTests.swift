import Foundation
import Testing

@testable import Stash

/// What each connection of a file store is set to, and a save large enough for many
/// batched INSERTs (`INSERT OR ROLLBACK`, with no statement journal) read back whole.
@Suite struct ConnectionSettingsTests {
    @Test func theWriterAndTheReadersSettings() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        let store = try #require(container.store as? SQLiteStore)
        #expect(try store.withConnection { try $0.integer("PRAGMA synchronous") } == 1)
        #expect(try store.withConnection { try $0.integer("PRAGMA foreign_keys") } == 1)
        #expect(try store.withConnection { try $0.integer("PRAGMA query_only") } == 0)
        #expect(try store.withReader { try $0.integer("PRAGMA query_only") } == 1)
    }

    /// A save of many rows in batches is whole after a reopen.
    @Test func aLargeSaveIsWholeAfterAReopen() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(5_000, at: directory.file())
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 5_000)
        let reopened = try testContainer(for: Post.self, storeURL: directory.file())
        let posts = try ManagedObjectContext(reopened).fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(posts.map(\.id) == Array(1...5_000))
        #expect(try sqliteShell(directory.file(), "PRAGMA integrity_check") == "ok\n")
    }
}
