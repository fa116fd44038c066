import Foundation
import Stash
import Testing

/// A row's key (`_pk`, what an `ObjectID` holds) is never given to another row, even after
/// the row with the highest key is deleted; stores made before keys were `AUTOINCREMENT`
/// are rebuilt in place, keeping their rows and keys.
@Suite(.sqliteOnly("AUTOINCREMENT and sqlite_sequence of the SQLite file")) struct RowKeyTests {
    @Test func theDeletedHighestKeyIsNeverGivenAgain() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(3, at: directory.file())
        let third = try #require(try context.fetch(FetchDescriptor<Post>()).first { $0.id == 3 })
        let heldID = third.objectID
        #expect(heldID.rowID == 3)
        context.delete(third)
        try context.save()
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1, firstID: 4))
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT _pk, id FROM Post ORDER BY _pk") == "1|1\n2|2\n4|4\n")
        // The ID held for the deleted row names no row, never the new one.
        let error = #expect(throws: StashError.self) {
            _ = try ManagedObjectContext(container).existingObject(with: heldID)
        }
        #expect(error?.code == .rowMissing)
        // Nor after the store is opened again, by this process or another.
        let reopened = try testContainer(for: Post.self, storeURL: directory.file())
        let later = ManagedObjectContext(reopened)
        let fourth = try #require(try later.fetch(FetchDescriptor<Post>()).first { $0.id == 4 })
        later.delete(fourth)
        try later.save()
        _ = try sqliteShellWriting(
            directory.file(), "INSERT INTO Post (id, userId, title, body, read) VALUES (5, 0, 'shell', 'b', 0)")
        #expect(try sqliteShell(directory.file(), "SELECT _pk, id FROM Post ORDER BY _pk") == "1|1\n2|2\n5|5\n")
    }

    @Test func aStoreMadeBeforeKeysWereAutoincrementIsRebuiltKeepingRowsAndKeys() throws {
        let directory = try TemporaryDirectory()
        _ = try sqliteShellWriting(directory.file(), Self.storeOfAnEarlierStash)
        let container = try testContainer(for: Post.self, storeURL: directory.file())
        #expect(
            try sqliteShell(directory.file(), "SELECT _pk, id, title FROM Post ORDER BY _pk") == "1|1|a\n2|2|b\n7|7|c\n"
        )
        #expect(
            try sqliteShell(directory.file(), "SELECT sql FROM sqlite_master WHERE name = 'Post'")
                .contains(#""_pk" INTEGER PRIMARY KEY AUTOINCREMENT"#))
        #expect(try sqliteShell(directory.file(), "SELECT seq FROM sqlite_sequence WHERE name = 'Post'") == "7\n")
        #expect(
            try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
                == "Post_id_unique\n")
        // Upserts still find the rows by their unique value; new rows take keys above them.
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [Post].self,
            from: json(
                #"[{"id": 7, "userId": 0, "title": "C", "body": "x"}, {"id": 8, "userId": 0, "title": "d", "body": "x"}]"#
            ))
        try context.save()
        let eighth = try #require(try context.fetch(FetchDescriptor<Post>()).first { $0.id == 8 })
        context.delete(eighth)
        try context.save()
        _ = try recipeDecoder(context).decode(
            Post.self, from: json(#"{"id": 9, "userId": 0, "title": "e", "body": "x"}"#))
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT _pk, id, title FROM Post ORDER BY _pk")
                == "1|1|a\n2|2|b\n7|7|C\n9|9|e\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA integrity_check") == "ok\n")
    }

    /// A store as Stash made it before keys were `AUTOINCREMENT`: WAL, `_pk INTEGER PRIMARY
    /// KEY`, rows 1, 2 and 7 left after deletes.
    static let storeOfAnEarlierStash = """
        PRAGMA journal_mode = WAL;
        CREATE TABLE "Post" ("_pk" INTEGER PRIMARY KEY, "id" INTEGER NOT NULL, "userId" INTEGER NOT NULL, \
        "title" TEXT NOT NULL, "body" TEXT NOT NULL, "read" INTEGER NOT NULL, "summary" TEXT);
        CREATE UNIQUE INDEX "Post_id_unique" ON "Post" ("id");
        INSERT INTO Post (_pk, id, userId, title, body, read) VALUES (1, 1, 0, 'a', 'x', 0), (2, 2, 0, 'b', 'x', 0),
            (7, 7, 0, 'c', 'x', 0);
        """
}
