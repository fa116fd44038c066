import Foundation
import Stash
import Testing

/// `PersistentContainer(for:store:)` with a store description says the same things as the
/// SQLite-worded initializers, and errors carry the store's own code with store-neutral
/// questions on it.
@Suite struct StoreDescriptionTests {
    @Test func aFileDescriptionMakesItsDirectoryAndKeepsItsRows() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("nested/deeper/store.sqlite")
        do {
            let container = try PersistentContainer(for: Post.self, store: .file(url))
            #expect(container.storeURL == url)
            let context = ManagedObjectContext(container)
            _ = try context.decode([Post].self, from: postsJSON(count: 3))
            try context.save()
        }
        // The same file through the older initializer: one store, two ways to say it.
        let reopened = try PersistentContainer(for: Post.self, storeURL: url)
        #expect(try ManagedObjectContext(reopened).fetchCount(FetchDescriptor<Post>()) == 3)
        #expect(try sqliteShell(url, "SELECT count(*) FROM Post") == "3\n")
    }

    @Test func anInMemoryDescriptionIsPrivateToItsContainer() throws {
        let first = try PersistentContainer(for: Post.self, store: .inMemory)
        let second = try PersistentContainer(for: Post.self, store: .inMemory)
        #expect(first.storeURL == nil)
        let context = ManagedObjectContext(first)
        _ = try context.decode([Post].self, from: postsJSON(count: 2))
        try context.save()
        #expect(try ManagedObjectContext(first).fetchCount(FetchDescriptor<Post>()) == 2)
        #expect(try ManagedObjectContext(second).fetchCount(FetchDescriptor<Post>()) == 0)
    }

    @Test func aURLThatIsNoFileIsRefusedByName() throws {
        let error = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: Post.self, store: .file(URL(string: "https://example.com/store")!))
        }
        #expect(error?.code == .storeFailed)
        #expect(error?.message.contains("https://example.com/store") == true)
    }

    /// The description's `lockTimeout` is SQLite's busy timeout: a save waits that long for
    /// another process's write, then fails as busy, writing nothing.
    @Test func aSaveWaitsForTheLockTimeoutThenFailsAsBusy() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(1, at: directory.file())
        let container = try PersistentContainer(
            for: Post.self, store: .file(directory.file(), lockTimeout: .milliseconds(200)))
        let holder = try LockHolder(file: directory.file(), sql: StoreOpeningTests.lockingInsert)
        let context = ManagedObjectContext(container)
        _ = try context.decode([Post].self, from: postsJSON(count: 1, firstID: 5))
        let start = ContinuousClock.now
        let error = #expect(throws: StashError.self) { try context.save() }
        let waited = ContinuousClock.now - start
        holder.release()
        #expect(waited >= .milliseconds(150))
        #expect(waited < .seconds(3), "the description's 200 ms, not the default 5 s")
        #expect(error?.storeCode?.isBusy == true)
        #expect(error?.storeCode?.isUniqueViolation == false)
        #expect(error?.sqliteCode.map { $0 & 0xff } == 5)  // SQLITE_BUSY, as the older name reads it
        #expect(error?.description.contains("(SQLite code ") == true)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "2\n")
    }

    @Test func aUniqueIndexRefusalSaysSoWhateverTheStore() throws {
        let directory = try TemporaryDirectory()
        let (_, context) = try savedPosts(2, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        posts[1].id = 1
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.storeCode == .sqlite(2067))
        #expect(error?.storeCode?.isUniqueViolation == true)
        #expect(error?.storeCode?.isBusy == false)
        #expect(StashError.StoreCode.sqlstate("23505").isUniqueViolation)
        #expect(StashError.StoreCode.sqlstate("55P03").isBusy)
        #expect(StashError.StoreCode.sqlite(1555).isUniqueViolation)
        #expect(StashError.StoreCode.sqlite(517).isBusy)  // SQLITE_BUSY_SNAPSHOT
    }
}
