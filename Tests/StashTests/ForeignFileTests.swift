import Foundation
import Stash
import Testing

/// A file Stash did not make is refused before anything is written to it: not switched to
/// WAL, no table adopted. Its bytes are compared before and after.
@Suite(.sqliteOnly("files Stash did not make, made with the sqlite3 shell")) struct ForeignFileTests {
    @Test func anotherAppsDatabaseIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        _ = try sqliteShellWriting(
            directory.file(), "CREATE TABLE Post(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO Post VALUES (1, 'x');"
        )
        let before = try Data(contentsOf: directory.file())
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: Post.self, storeURL: directory.file())
        }
        #expect(error?.code == .foreignStore)
        #expect(error?.description.contains("not made by Stash") == true)
        #expect(error?.description.contains(directory.file().path) == true)
        #expect(try Data(contentsOf: directory.file()) == before)
        #expect(try sqliteShell(directory.file(), "PRAGMA journal_mode") == "delete\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file().path + "-wal"))
    }

    @Test func aForeignTableWithAPKColumnIsNotAdopted() throws {
        let directory = try TemporaryDirectory()
        // Another app's table that happens to have `_pk`, NOT NULL columns and no unique index.
        _ = try sqliteShellWriting(
            directory.file(),
            """
            CREATE TABLE Post (_pk INTEGER PRIMARY KEY, id INTEGER NOT NULL, userId INTEGER NOT NULL,
                title TEXT NOT NULL, body TEXT NOT NULL, read INTEGER NOT NULL, summary TEXT, extra TEXT NOT NULL);
            INSERT INTO Post VALUES (1, 1, 1, 't', 'b', 0, NULL, 'e'), (2, 1, 1, 't', 'b', 0, NULL, 'e');
            """)
        let before = try Data(contentsOf: directory.file())
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: Post.self, storeURL: directory.file())
        }
        #expect(error?.code == .foreignStore)
        #expect(error?.entity == "Post")
        #expect(try Data(contentsOf: directory.file()) == before)
        // The same table in WAL mode is refused too: its SQL is not in Stash's words.
        _ = try sqliteShellWriting(directory.file(), "PRAGMA journal_mode = WAL")
        let walBefore = try Data(contentsOf: directory.file())
        #expect(throws: StashError.self) {
            _ = try testContainer(for: Post.self, storeURL: directory.file())
        }
        #expect(try Data(contentsOf: directory.file()) == walBefore)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM sqlite_master WHERE type = 'index'") == "0\n")
    }

    @Test func aFileThatIsNotADatabaseIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let bytes = Data("not a database, but the user's notes\n".utf8) + Data(repeating: 7, count: 4096)
        try bytes.write(to: directory.file())
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: Post.self, storeURL: directory.file())
        }
        #expect(error?.code == .storeFailed)
        #expect(error?.sqliteCode == 26)  // SQLITE_NOTADB
        #expect(try Data(contentsOf: directory.file()) == bytes)
    }

    @Test func anEmptyFileIsStashsToMake() throws {
        let directory = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory.file().path, contents: Data()))
        _ = try savedPosts(2, at: directory.file())
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "2\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA journal_mode") == "wal\n")
        #expect(
            try sqliteShell(directory.file(), #"SELECT "key", "value" FROM _stash_schema ORDER BY "key""#)
                == "format|1\nschemaVersion|0\n")
    }

    @Test func aStoreOfAnEarlierStashIsRecognisedAndKeepsTheOtherTablesItHolds() throws {
        let directory = try TemporaryDirectory()
        _ = try sqliteShellWriting(
            directory.file(),
            RowKeyTests.storeOfAnEarlierStash + "CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT);")
        let context = ManagedObjectContext(try testContainer(for: Post.self, storeURL: directory.file()))
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
        #expect(
            try sqliteShell(directory.file(), "SELECT sql FROM sqlite_master WHERE name = 'Notes'")
                == "CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT)\n")
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM _stash_schema WHERE "key" = 'format'"#) == "1\n")
    }
}
