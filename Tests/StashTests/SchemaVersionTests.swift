import Foundation
import Stash
import Testing

/// Versions of `Item` as an app's releases change it.
enum Release {
    enum First {
        final class Item: ManagedObject, Decodable {
            @Attribute var name: String
        }
    }

    enum Second {
        /// Adds a unique code and a required size.
        final class Item: ManagedObject, Decodable {
            @Attribute(.unique) var code: String
            @Attribute var name: String
            @Attribute var size: Int
        }
    }

    enum Third {
        /// Adds an optional note.
        final class Item: ManagedObject, Decodable {
            @Attribute(.unique) var code: String
            @Attribute var name: String
            @Attribute var size: Int
            @Attribute var note: String?
        }
    }
}

/// An older model (an older release of the app) cannot undo what a newer one made: the store
/// keeps the highest schema version that opened it, and the file is left byte for byte as it
/// was when an open is refused.
@Suite(.sqliteOnly("reads the record and catalog through the sqlite3 shell; PostgreSQL's: PostgresMigrationTests"))
struct SchemaVersionTests {
    /// A store the second release made, with two items, closed (its WAL checkpointed).
    func storeOfTheSecondRelease() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(
            try testContainer(for: Release.Second.Item.self, storeURL: directory.file()))
        _ = try recipeDecoder(context).decode(
            [Release.Second.Item].self,
            from: json(#"[{"code": "a", "name": "one", "size": 1}, {"code": "b", "name": "two", "size": 2}]"#))
        try context.save()
        return directory
    }

    @Test func anOlderModelThatWouldUndoWhatANewerOneMadeIsRefusedUntouched() throws {
        let directory = try storeOfTheSecondRelease()
        let before = try Data(contentsOf: directory.file())
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: Release.First.Item.self, storeURL: directory.file())
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.entity == "Item")
        #expect(error?.attribute == "code")
        let message = error?.message ?? ""
        #expect(message.contains("Item.code would take NULL"))
        #expect(message.contains("Item.size would take NULL"))
        #expect(message.contains("the unique index Item_code_unique on Item (code) would be dropped"))
        #expect(message.contains("schemaVersion above the store's 0"))
        #expect(try Data(contentsOf: directory.file()) == before)
        // The newer model opens it as it left it, unique code and all.
        let context = ManagedObjectContext(
            try testContainer(for: Release.Second.Item.self, storeURL: directory.file()))
        _ = try recipeDecoder(context).decode(
            Release.Second.Item.self, from: json(#"{"code": "a", "name": "ONE", "size": 1}"#))
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT code, name FROM Item ORDER BY code") == "a|ONE\nb|two\n")
    }

    @Test func aModelThatDropsConstraintsOnPurposeSaysSoWithAHigherVersion() throws {
        let directory = try storeOfTheSecondRelease()
        _ = try testContainer(for: Release.First.Item.self, storeURL: directory.file(), schemaVersion: 1)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM sqlite_master WHERE type = 'index'") == "0\n")
        #expect(
            try sqliteShell(directory.file(), "SELECT \"notnull\" FROM pragma_table_info('Item') WHERE name = 'size'")
                == "0\n")
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM _stash_schema WHERE "key" = 'schemaVersion'"#)
                == "1\n")
        #expect(
            try sqliteShell(directory.file(), "SELECT code, name, size FROM Item ORDER BY code") == "a|one|1\nb|two|2\n"
        )
        // Now the second release, at version 0, is the older model: it may not change the store.
        let before = try Data(contentsOf: directory.file())
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: Release.Second.Item.self, storeURL: directory.file())
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("a newer model (schema version 1) made this store, and this one (0)") == true)
        #expect(error?.message.contains("make the index Item_code_unique") == true)
        #expect(try Data(contentsOf: directory.file()) == before)
        // A model that needs no change opens at any version, and does not lower the store's.
        _ = try testContainer(for: Release.First.Item.self, storeURL: directory.file())
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM _stash_schema WHERE "key" = 'schemaVersion'"#)
                == "1\n")
    }

    @Test func anOlderModelThatChangesNothingOpensAndWorks() throws {
        let directory = try storeOfTheSecondRelease()
        _ = try testContainer(for: Release.Third.Item.self, storeURL: directory.file())
        // The second release lacks only an optional column: nothing to change.
        let before = try Data(contentsOf: directory.file())
        let context = ManagedObjectContext(
            try testContainer(for: Release.Second.Item.self, storeURL: directory.file()))
        #expect(try context.fetchCount(FetchDescriptor<Release.Second.Item>()) == 2)
        #expect(try Data(contentsOf: directory.file()) == before)
        _ = try recipeDecoder(context).decode(
            Release.Second.Item.self, from: json(#"{"code": "c", "name": "three", "size": 3}"#))
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT code, note IS NULL FROM Item ORDER BY code") == "a|1\nb|1\nc|1\n")
    }

    @Test func addingEntitiesAndAttributesNeedsNoVersion() throws {
        let directory = try TemporaryDirectory()
        _ = try testContainer(for: Release.First.Item.self, storeURL: directory.file())
        _ = try testContainer(for: Release.Second.Item.self, Label.self, storeURL: directory.file())
        #expect(
            try sqliteShell(directory.file(), "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
                .contains("Item_code_unique\n"))
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM _stash_schema WHERE "key" = 'schemaVersion'"#)
                == "0\n")
    }
}
