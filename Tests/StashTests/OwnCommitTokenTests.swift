import CSQLite
import Foundation
import Testing

@testable import Stash

/// The change token a save or a record vouches with (`SQLiteStore.tokenAfterOwnCommit`): the
/// token right after the writer's commit, or nothing when another connection committed
/// before it was read, which the token alone cannot tell apart (it moves once for both):
/// asked directly, and through a save.
@Suite struct OwnCommitTokenTests {
    @Test func aCommitAloneGivesTheTokenAnotherAfterItGivesNone() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Post.self, storeURL: directory.file())
        let store = try #require(container.store as? SQLiteStore)
        func commit(_ id: Int, thenBy other: String?) throws -> (before: Int64, after: Int64?) {
            try store.withConnection { connection in
                var before: Int64 = 0
                var writerVersion: Int64 = 0
                try connection.transaction {
                    try connection.execute(
                        "INSERT INTO \"Post\" (\"id\", \"userId\", \"title\", \"body\", \"read\") VALUES (\(id), 1, 't', 'b', 0)"
                    )
                    before = try store.changeToken()
                    writerVersion = try connection.integer("PRAGMA data_version")
                }
                // Another process commits between the commit and the read of the token.
                if let other { _ = try sqliteShellWriting(directory.file(), other) }
                return (before, try store.tokenAfterOwnCommit(writerVersion, connection))
            }
        }
        let alone = try commit(1, thenBy: nil)
        #expect(alone.after != nil && alone.after != alone.before)
        #expect(alone.after == (try store.changeToken()))
        let followed = try commit(2, thenBy: #"UPDATE "Post" SET "title" = 'by the shell' WHERE "id" = 1"#)
        #expect(followed.after == nil)
        // Nothing came after this one: the token is vouched for again.
        let again = try commit(3, thenBy: nil)
        #expect(again.after == (try store.changeToken()))
    }

    /// The same through a context's save: another process commits inside the save's own
    /// COMMIT, the moment SQLite calls the writer's WAL hook (the write lock released, the
    /// save's token not read yet). That commit counts as another process's, and the next
    /// fetch reads the row it changed.
    @Test func aCommitRightAfterASaveIsAnotherProcesssCommit() throws {
        let titles = try titlesRead { context, posts in
            posts[0].title = "mine"
            try context.save()
        }
        #expect(titles == ["mine", "shell"])
    }

    /// And through a record Stash writes after a save (`writeBookkeeping`), which counts as
    /// the container's own commit only when nothing came after it: the other process's
    /// commit inside the record's COMMIT still counts, and its row is read.
    @Test func aCommitRightAfterARecordIsAnotherProcesssCommit() throws {
        let titles = try titlesRead { context, _ in
            let stamp = try context.writeBookkeeping(["page": "etag"], in: BookkeepingTable("own_commit_test"))
            #expect(stamp == nil)
        }
        #expect(titles == ["Title 1", "shell"])
    }

    /// Two saved posts, fetched; `commit` runs with the `sqlite3` shell set to change post 2's
    /// title inside the writer's next COMMIT. Checks that the shell ran and that its commit
    /// counts as another process's, and answers the titles a fetch reads then.
    private func titlesRead(after commit: (ManagedObjectContext, [Post]) throws -> Void) throws -> [String] {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let sorted = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])
        let posts = try context.fetch(sorted)
        let seen = try container.externalCommitCount()
        let store = try #require(container.store as? SQLiteStore)
        let shell = AfterCommit {
            _ = try sqliteShellWriting(directory.file(), #"UPDATE "Post" SET "title" = 'shell' WHERE "id" = 2"#)
        }
        try withExtendedLifetime(shell) {
            try shell.install(on: store)
            try commit(context, posts)
        }
        #expect(shell.outcomes == ["ran"])
        #expect(try container.externalCommitCount() == seen + 1)
        return try context.fetch(sorted).map(\.title)
    }
}

/// Work run once, from SQLite's WAL hook, after the writer's first commit.
private final class AfterCommit {
    private let work: () throws -> Void
    private(set) var outcomes: [String] = []

    init(_ work: @escaping () throws -> Void) { self.work = work }

    /// Runs `run` from the writer's WAL hook, which SQLite calls once a commit is done and its
    /// write lock let go. Replaces the writer's autocheckpoint hook: for a store the test then
    /// throws away. The caller keeps this object alive while the hook may run.
    func install(on store: SQLiteStore) throws {
        _ = try store.withConnection { connection in
            sqlite3_wal_hook(
                connection.handle,
                { box, _, _, _ in
                    Unmanaged<AfterCommit>.fromOpaque(box!).takeUnretainedValue().run()
                    return SQLITE_OK
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    func run() {
        guard outcomes.isEmpty else { return }
        do {
            try work()
            outcomes.append("ran")
        } catch {
            outcomes.append("failed: \(error)")
        }
    }
}
