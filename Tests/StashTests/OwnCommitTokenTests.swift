import Foundation
import Testing

@testable import Stash

/// The change token a save or a record vouches with (`SQLiteStore.tokenAfterOwnCommit`): the
/// token right after the writer's commit, or nothing when another connection committed
/// before it was read, which the token alone cannot tell apart (it moves once for both).
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
}
