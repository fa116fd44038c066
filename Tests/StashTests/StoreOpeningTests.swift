import Foundation
import Stash
import Testing

/// Opening a store reads; it writes only when the models need a migration, and waits for
/// another process's write no longer than the busy timeout says.
@Suite(.sqliteOnly("busyTimeout and the SQLite write lock of another process")) struct StoreOpeningTests {
    static let lockingInsert = "INSERT INTO Post (id, userId, title, body, read) VALUES (99, 0, 'x', 'y', 0)"

    @Test func openingWhileAnotherProcessWritesDoesNotWait() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        let holder = try LockHolder(file: directory.file(), sql: Self.lockingInsert)
        defer { holder.release() }
        // No wait allowed at all: opening would fail with SQLITE_BUSY if it needed the lock.
        // (A time bound would say the same less surely on a loaded machine.)
        let container = try testContainer(for: Post.self, storeURL: directory.file(), busyTimeout: .zero)
        // Readers see the last commit, not the other process's open transaction.
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<Post>()).map(\.id) == [1, 2, 3])
    }

    @Test func aMigrationWaitsForTheBusyTimeoutThenFailsUntouched() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        let holder = try LockHolder(file: directory.file(), sql: Self.lockingInsert)
        let start = ContinuousClock.now
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(
                for: Post.self, Label.self, storeURL: directory.file(), busyTimeout: .milliseconds(300))
        }
        let waited = ContinuousClock.now - start
        holder.release()
        #expect(error?.code == .storeFailed)
        #expect(error?.sqliteCode == 5)  // SQLITE_BUSY
        #expect(error?.description.contains("locked") == true)
        #expect(waited >= .milliseconds(250))
        #expect(try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE name = 'Label'") == "")
        // Once the other process is done, the migration goes through.
        _ = try testContainer(for: Post.self, Label.self, storeURL: directory.file())
        #expect(try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE name = 'Label'") == "Label\n")
    }
}
