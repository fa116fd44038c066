import Foundation
import Stash
import Synchronization
import Testing

@testable import StashPostgres

/// `decodeAndSave` on PostgreSQL, where only Stash's saves wait for its transaction: a row
/// another writer commits meanwhile is found at the save, as it would be without batches.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresDecodeAndSaveTests {
    final class Ticket: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String = ""

        /// The database another writer (a raw libpq connection, as `psql`) inserts into, as
        /// ticket 150 is saved.
        static let outside = Mutex<String?>(nil)

        override func validateForInsert() throws {
            guard id == 150, let url = Self.outside.withLock({ $0 }) else { return }
            let writer = try PostgresConnection(url)
            try writer.execute(#"INSERT INTO "Ticket" ("id", "title") VALUES (250, 'outside')"#)
        }
    }

    @Test func aRowAnotherWriterCommitsMidImportIsUpserted() throws {
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Ticket.self, postgres: url)
        Ticket.outside.withLock { $0 = url }
        defer { Ticket.outside.withLock { $0 = nil } }
        let payload = Data(
            "[\((1...300).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ","))]".utf8)
        let context = ManagedObjectContext(container)
        let imported = try context.decodeAndSave([Ticket].self, from: payload, batchSize: 100)
        #expect(imported.decoded == 300)
        #expect(imported.storeLookUpsSpared == 0)
        let stored = try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.id == 250 }))
        #expect(stored.map(\.title) == ["t250"])
        #expect(try context.fetchCount(FetchDescriptor<Ticket>()) == 300)
    }
}
