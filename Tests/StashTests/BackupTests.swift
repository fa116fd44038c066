import Foundation
import Stash
import TestProcesses
import Testing

/// Saves reach the main file, not only the WAL: a checkpoint when the store closes (even
/// with another process connected) and after large saves, and `backup(to:)` for a copy while
/// it is open.
@Suite(.sqliteOnly("backup(to:) copies the SQLite file (PostgreSQL refuses it by name: PostgresStoreTests)"))
struct BackupTests {
    /// Posts with a body of about a kilobyte each.
    func bigPostsJSON(count: Int, firstID: Int = 1) -> Data {
        let posts = (0..<count).map { offset -> [String: Any] in
            let id = firstID + offset
            return ["id": id, "userId": 1, "title": "Title \(id)", "body": String(repeating: "b", count: 1000)]
        }
        return try! JSONSerialization.data(withJSONObject: posts)
    }

    /// The rows a copy of the main file alone holds, as a backup that copies only
    /// `store.sqlite` would keep them.
    func rowsInMainFileAlone(_ directory: TemporaryDirectory) throws -> String {
        let copy = directory.file("main-only.sqlite")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: directory.file(), to: copy)
        // The table itself may not have reached the main file yet: that is told apart.
        let tables = try sqliteShell(copy, "SELECT count(*) FROM sqlite_master WHERE name = 'Post'")
        guard tables == "1\n" else { return "no table\n" }
        return try sqliteShell(copy, "SELECT count(*) FROM Post")
    }

    @Test func aClosedStoreIsItsMainFileEvenWithAnotherProcessConnected() throws {
        let directory = try TemporaryDirectory()
        _ = try testContainer(for: Post.self, storeURL: directory.file())
        let other = try IdleConnection(file: directory.file())
        defer { other.close() }
        do {
            let container = try testContainer(for: Post.self, storeURL: directory.file())
            for first in stride(from: 1, to: 200, by: 10) {
                let context = ManagedObjectContext(container)
                _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 10, firstID: first))
                try context.save()
            }
            // Small saves: they are in the WAL only, for now.
            #expect(try rowsInMainFileAlone(directory) == "0\n")
        }
        #expect(try rowsInMainFileAlone(directory) == "200\n")
        let wal = try FileManager.default.attributesOfItem(atPath: directory.file().path + "-wal")
        #expect((wal[.size] as? Int) == 0)
    }

    /// Closing never waits for another process's write transaction (the busy timeout here
    /// is ten minutes: a close that waited would hold the test that long), and still copies
    /// the saves into the main file.
    @Test func closingWhileAnotherProcessWritesCopiesWhatItCanWithoutWaiting() throws {
        let directory = try TemporaryDirectory()
        _ = try testContainer(for: Post.self, storeURL: directory.file())
        let holder: LockHolder
        do {
            let container = try testContainer(
                for: Post.self, storeURL: directory.file(), busyTimeout: .seconds(600))
            let context = ManagedObjectContext(container)
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 30))
            try context.save()
            holder = try LockHolder(file: directory.file())
        }
        defer { holder.release() }
        #expect(try rowsInMainFileAlone(directory) == "30\n")
    }

    @Test func aLargeSaveIsCopiedIntoTheMainFile() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(1, at: directory.file())
        let other = try IdleConnection(file: directory.file())
        defer { other.close() }
        // About 2 MB: past the 1 MB after which a commit is followed by a checkpoint.
        _ = try recipeDecoder(context).decode([Post].self, from: bigPostsJSON(count: 2000, firstID: 2))
        try context.save()
        #expect(try rowsInMainFileAlone(directory) == "2001\n")
        _ = container
    }

    @Test func aBackupHoldsWhatIsStillInTheWAL() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(50, at: directory.file())
        let other = try IdleConnection(file: directory.file())
        defer { other.close() }
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 25, firstID: 51))
        try context.save()
        // The 25 new rows are in the WAL alone: the main file holds the first 50 at most.
        #expect(["no table\n", "0\n", "50\n"].contains(try rowsInMainFileAlone(directory)))
        let copy = directory.file("backups/copy.sqlite")
        try container.backup(to: copy)
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
        #expect(try sqliteShell(copy, "SELECT count(*), max(id) FROM Post") == "75|75\n")
        #expect(try sqliteShell(copy, "PRAGMA integrity_check") == "ok\n")
        // The copy is a Stash store: it opens, and a second backup replaces it.
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 76))
        try context.save()
        try container.backup(to: copy)
        let reopened = ManagedObjectContext(try testContainer(for: Post.self, storeURL: copy))
        #expect(try reopened.fetchCount(FetchDescriptor<Post>()) == 76)
    }

    @Test func anInMemoryStoreCanBeBackedUpToAFile() throws {
        let (container, _) = try savedPosts(3)
        let directory = try TemporaryDirectory()
        try container.backup(to: directory.file())
        #expect(try sqliteShell(directory.file(), "SELECT id FROM Post ORDER BY id") == "1\n2\n3\n")
    }

    @Test func aBackupRefusesTheStoreItselfAndAnotherAppsFile() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(3, at: directory.file())
        let itself = #expect(throws: StashError.self) { try container.backup(to: directory.file()) }
        #expect(itself?.message.contains("onto itself") == true)
        let foreign = directory.file("theirs.sqlite")
        _ = try sqliteShellWriting(foreign, "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        let before = try Data(contentsOf: foreign)
        let refused = #expect(throws: StashError.self) { try container.backup(to: foreign) }
        #expect(refused?.code == .foreignStore)
        #expect(try Data(contentsOf: foreign) == before)
    }
}

/// Another process, python3's sqlite3 module, connected to a store file and idle (no
/// transaction open), until `close()`: SQLite's own checkpoint when a store's last
/// connection closes does not run while it is there.
final class IdleConnection {
    private let process: ChildProcess

    init(file: URL) throws {
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
            print("connected", flush=True)
            sys.stdin.read()
            connection.close()
            """
        process = try ChildProcess(
            "/usr/bin/env", ["python3", "-c", script, file.path], standardInput: .pipe, standardOutput: .pipe)
        let line = String(decoding: process.standardOutputReader!.readData(ofLength: 10), as: UTF8.self)
        guard line == "connected\n" else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "python said \(line)"])
        }
    }

    func close() {
        try? process.standardInputWriter?.close()
        process.waitUntilExit()
    }
}
