import Foundation
import Stash
import Testing

@testable import StashPostgres

enum ShelvesV1 {
    final class Shelf: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Attribute var legacy: String = "old"
    }
}

enum ShelvesV2 {
    final class Shelf: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute(originalName: "name") var title: String
        @Attribute(.indexed) var views: Int = 5
        @Attribute var note: String?
        @Attribute var code: UUID = UUID()
    }
}

/// V2 without the unique constraint on `id`.
enum ShelvesV2NotUnique {
    final class Shelf: ManagedObject, Decodable {
        @Attribute var id: Int
        @Attribute var title: String
        @Attribute(.indexed) var views: Int = 5
        @Attribute var note: String?
        @Attribute var code: UUID = UUID()
    }
}

/// V2 and one more optional attribute.
enum ShelvesV2Plus {
    final class Shelf: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute(.indexed) var views: Int = 5
        @Attribute var note: String?
        @Attribute var code: UUID = UUID()
        @Attribute var extra: String?
    }
}

enum ShelvesV3 {
    final class Shelf: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var must: Int
    }
}

/// Opening a database whose tables an earlier model made alters them in place, in one
/// transaction, keeping every row's data; what cannot be done changes nothing.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresMigrationTests {
    @Test func addedRenamedAndDroppedAttributesKeepTheRows() throws {
        let url = try PostgresServer.newDatabase()
        do {
            let context = ManagedObjectContext(try PersistentContainer(for: ShelvesV1.Shelf.self, postgres: url))
            _ = try decoder(context).decode(
                [ShelvesV1.Shelf].self, from: json(#"[{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]"#))
            try context.save()
        }
        // V2 drops `legacy`, a required column: that undoes V1's table, so it says so by
        // its version.
        let container = try PersistentContainer(for: ShelvesV2.Shelf.self, store: .postgres(url), schemaVersion: 1)
        let context = ManagedObjectContext(container)
        let shelves = try context.fetch(FetchDescriptor<ShelvesV2.Shelf>(sortBy: [SortDescriptor(\.id)]))
        #expect(shelves.map(\.title) == ["one", "two"])
        #expect(shelves.map(\.views) == [5, 5])
        #expect(shelves.allSatisfy { $0.note == nil })
        #expect(Set(shelves.map(\.code)).count == 2, "a default made per object is made per row")
        // The dropped attribute's column keeps its data and no longer stops an insert.
        _ = try decoder(context).decode([ShelvesV2.Shelf].self, from: json(#"[{"id": 3, "title": "three"}]"#))
        try context.save()
        let connection = try PostgresConnection(url)
        let legacy = try connection.execute(#"SELECT "legacy" FROM "Shelf" ORDER BY "_pk""#)
        #expect((0..<legacy.rowCount).map { legacy.isNull($0, 0) ? nil : legacy.text($0, 0) } == ["old", "old", nil])
        let index = try connection.execute(#"SELECT count(*) FROM pg_indexes WHERE indexname = 'Shelf_views_index'"#)
        #expect(index.integer(0, 0) == 1)
        // Opening again changes nothing.
        _ = try PersistentContainer(for: ShelvesV2.Shelf.self, store: .postgres(url), schemaVersion: 1)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<ShelvesV2.Shelf>()) == 3)
    }

    @Test func aRequiredAttributeWithoutDefaultIsRefusedAndNothingChanges() throws {
        let url = try PostgresServer.newDatabase()
        do {
            let context = ManagedObjectContext(try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url))
            _ = try decoder(context).decode([ShelvesV2.Shelf].self, from: json(#"[{"id": 1, "title": "one"}]"#))
            try context.save()
        }
        let error = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: ShelvesV3.Shelf.self, postgres: url)
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.entity == "Shelf" && error?.attribute == "must")
        let columns = try PostgresConnection(url).execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = 'Shelf' AND column_name = 'must'")
        #expect(columns.integer(0, 0) == 0)
        // The views index V2 made and V3 does not want is still there: nothing was touched.
        #expect(
            try ManagedObjectContext(try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url))
                .fetchCount(FetchDescriptor<ShelvesV2.Shelf>()) == 1)
    }

    /// The schema version rule of SQLite stores: a model that would undo what the store
    /// holds (a required column taking NULL) needs a higher version than the store's; an
    /// older model may open the store only if it changes nothing. A refusal changes nothing.
    @Test func undoingNeedsAHigherSchemaVersion() throws {
        let url = try PostgresServer.newDatabase()
        do {
            let context = ManagedObjectContext(try PersistentContainer(for: ShelvesV1.Shelf.self, postgres: url))
            _ = try decoder(context).decode([ShelvesV1.Shelf].self, from: json(#"[{"id": 1, "name": "one"}]"#))
            try context.save()
        }
        let undo = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url)
        }
        #expect(undo?.code == .migrationFailed)
        #expect(undo?.entity == "Shelf" && undo?.attribute == "legacy")
        #expect(undo?.message.contains("schemaVersion above the store's 0") == true)
        let connection = try PostgresConnection(url)
        let names = try connection.execute(
            "SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns "
                + "WHERE table_name = 'Shelf'")
        #expect(names.text(0, 0) == "_pk,id,legacy,name", "the refused migration renamed or added nothing")
        _ = try PersistentContainer(for: ShelvesV2.Shelf.self, store: .postgres(url), schemaVersion: 2)
        let version = try connection.execute(#"SELECT "value" FROM "_stash_schema" WHERE "key" = 'schemaVersion'"#)
        #expect(version.integer(0, 0) == 2)
        // A model below the store's version may change nothing, not even add a column.
        let older = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: ShelvesV2Plus.Shelf.self, store: .postgres(url), schemaVersion: 1)
        }
        #expect(older?.code == .migrationFailed)
        #expect(older?.message.contains("a newer model (schema version 2)") == true)
        #expect(older?.message.contains("add the column Shelf.extra") == true)
        // A model at a lower version that changes nothing opens, and leaves the version.
        _ = try PersistentContainer(for: ShelvesV2.Shelf.self, store: .postgres(url), schemaVersion: 1)
        #expect(try connection.execute(#"SELECT "value" FROM "_stash_schema""#).integer(0, 0) == 2)
    }

    /// A unique constraint the model dropped is dropped from the table only by a model at a
    /// higher version; then the rows may repeat the value.
    @Test func aDroppedUniqueIndexIsALoss() throws {
        let url = try PostgresServer.newDatabase()
        _ = try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url)
        let refused = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: ShelvesV2NotUnique.Shelf.self, postgres: url)
        }
        #expect(refused?.code == .migrationFailed)
        #expect(refused?.attribute == "id")
        #expect(refused?.message.contains("Shelf_id_unique") == true)
        let connection = try PostgresConnection(url)
        let unique = #"SELECT count(*) FROM pg_indexes WHERE indexname = 'Shelf_id_unique'"#
        #expect(try connection.execute(unique).integer(0, 0) == 1)
        let container = try PersistentContainer(
            for: ShelvesV2NotUnique.Shelf.self, store: .postgres(url), schemaVersion: 1)
        #expect(try connection.execute(unique).integer(0, 0) == 0)
        #expect(
            try connection.execute(#"SELECT count(*) FROM pg_indexes WHERE indexname = 'Shelf_views_index'"#)
                .integer(0, 0) == 1, "the index the model still wants stays")
        let context = ManagedObjectContext(container)
        for title in ["a", "b"] {
            let shelf = ShelvesV2NotUnique.Shelf(context: context)
            shelf.id = 7
            shelf.title = title
        }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ShelvesV2NotUnique.Shelf>()) == 2)
    }

    /// A store description's `lockTimeout` bounds how long a save waits for another
    /// process's save: past it the save fails as busy and writes nothing.
    @Test func aSaveWaitsNoLongerThanTheLockTimeout() throws {
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(
            for: ShelvesV2.Shelf.self, store: .postgres(url, lockTimeout: .milliseconds(200)))
        // Another process in the middle of a save: it holds the writer row.
        let other = try PostgresConnection(url)
        try other.execute("BEGIN")
        try other.execute(#"UPDATE "_stash_commits" SET "count" = "count" + 1"#)
        let context = ManagedObjectContext(container)
        let shelf = ShelvesV2.Shelf(context: context)
        shelf.id = 1
        shelf.title = "waiting"
        let started = ContinuousClock.now
        let error = #expect(throws: StashError.self) { try context.save() }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(150), "it waited for the lock first")
        #expect(waited < .seconds(3))
        #expect(error?.storeCode == .sqlstate("55P03"))
        #expect(error?.storeCode?.isBusy == true)
        #expect(context.hasChanges, "the failed save keeps the context's changes")
        try other.execute("ROLLBACK")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ShelvesV2.Shelf>()) == 1)
    }
}
