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
        let container = try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url)
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
        _ = try PersistentContainer(for: ShelvesV2.Shelf.self, postgres: url)
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
}
