import Foundation
import Stash
import Testing

@testable import StashPostgres

/// Several containers (as several processes would) writing one database at once, and what
/// the server's refusals become.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresConcurrencyTests {
    /// Four containers import overlapping ids at once: every id once, nothing lost, and
    /// each row holds the values of one whole save.
    @Test func overlappingImportsNeitherLoseNorDuplicate() async throws {
        let url = try PostgresServer.newDatabase()
        let containers = try (0..<4).map { _ in try PersistentContainer(for: Reading.self, postgres: url) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, container) in containers.enumerated() {
                group.addTask {
                    for round in 0..<5 {
                        try await container.performBackgroundTask { context in
                            let ids = (0..<40).map { writer * 20 + $0 }  // half shared with the next writer
                            let items = ids.map {
                                #"{"id": \#($0), "name": "w\#(writer)r\#(round)", "small": \#(writer)}"#
                            }
                            _ = try decoder(context).decode(
                                [Reading].self, from: json("[" + items.joined(separator: ",") + "]"))
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let context = ManagedObjectContext(containers[0])
        let readings = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        #expect(readings.map(\.id) == Array(0..<100))
        for reading in readings {
            #expect(reading.name == "w\(reading.small)r4", "row \(reading.id) mixes saves: \(reading.name)")
        }
    }

    /// The server's SQLSTATEs become the error codes SQLite's errors get, naming the table,
    /// the column and the constraint, and never the values.
    @Test func serverRefusalsNameTheirPlace() throws {
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Reading.self, postgres: url)
        let context = ManagedObjectContext(container)
        Reading(context: context).id = 1
        try context.save()
        let connection = try PostgresConnection(url)
        let duplicate = #expect(throws: StashError.self) {
            try connection.execute(
                #"INSERT INTO "Reading" ("id", "name", "score", "flag", "taken", "price", "tags", "small", "big") VALUES (1, 'secret', 0, 0, '', '0', '[]', 0, 0)"#
            )
        }
        #expect(duplicate?.code == .storeFailed)
        #expect(duplicate?.entity == "Reading" && duplicate?.attribute == "id")
        #expect(duplicate?.storeCode == .sqlstate("23505"))
        #expect(duplicate?.message.contains("(id)=(1)") == false)  // the server's detail quotes the value
        let missing = #expect(throws: StashError.self) {
            try connection.execute(#"INSERT INTO "Reading" ("id") VALUES (2)"#)
        }
        #expect(missing?.storeCode == .sqlstate("23502"))
        #expect(missing?.entity == "Reading" && missing?.attribute == "name")
    }

    /// A connection the server drops fails the call in flight with a message that says so;
    /// the pool then makes a new one and the container goes on.
    @Test func aLostConnectionIsReplaced() throws {
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Reading.self, postgres: url, connections: 1)
        let context = ManagedObjectContext(container)
        Reading(context: context).id = 1
        try context.save()
        let admin = try PostgresConnection(url)
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND pid <> pg_backend_pid()")
        let lost = #expect(throws: StashError.self) { try context.fetchCount(FetchDescriptor<Reading>()) }
        #expect(lost?.code == .storeFailed)
        #expect(lost?.message.contains("connection") == true)
        #expect(try context.fetchCount(FetchDescriptor<Reading>()) == 1)
    }

    /// A thread that holds the only connection (a save) and asks for another (a read) gets
    /// one rather than waiting for itself.
    @Test func aPoolOfOneLendsANestedCall() throws {
        let pool = try PostgresPool(conninfo: try PostgresServer.newDatabase(), size: 1)
        let done = DispatchSemaphore(value: 0)
        let answer = Locked<Int64?>(nil)
        Thread.detachNewThread {
            let value = try? pool.withConnection { _ in
                try pool.withConnection { inner in try inner.execute("SELECT 41 + 1").integer(0, 0) }
            }
            answer.withLock { $0 = value }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 20) == .success, "the nested call waited for its own thread")
        #expect(answer.withLock { $0 } == 42)
        // The pool is whole again: a call from another thread gets the connection.
        #expect(try pool.withConnection { try $0.execute("SELECT 1").integer(0, 0) } == 1)
    }

    /// A pipelined batch that fails midway throws the server's error for the statement that
    /// failed, runs none after it, and leaves the connection usable: in a transaction,
    /// nothing of it stays.
    @Test func aPipelineThatFailsThrowsAndRollsBack() throws {
        let connection = try PostgresConnection(try PostgresServer.newDatabase())
        try connection.execute(#"CREATE TABLE "T" ("id" bigint PRIMARY KEY)"#)
        try connection.execute("BEGIN")
        let error = #expect(throws: StashError.self) {
            try connection.executePipelined([
                (#"INSERT INTO "T" VALUES ($1), ($2)"#, [.integer(1), .integer(2)]),
                (#"INSERT INTO "T" VALUES ($1)"#, [.integer(2)]),
                (#"INSERT INTO "T" VALUES ($1)"#, [.integer(3)]),
            ])
        }
        #expect(error?.storeCode == .sqlstate("23505"))
        #expect(error?.storeCode?.isUniqueViolation == true)
        #expect(error?.sql == #"INSERT INTO "T" VALUES ($1)"#)
        try connection.execute("ROLLBACK")
        #expect(try connection.execute(#"SELECT count(*) FROM "T""#).integer(0, 0) == 0)
        try connection.executePipelined([
            (#"INSERT INTO "T" VALUES ($1)"#, [.integer(4)]), (#"INSERT INTO "T" VALUES ($1)"#, [.integer(5)]),
        ])
        #expect(try connection.execute(#"SELECT count(*) FROM "T""#).integer(0, 0) == 2)
    }

    /// A save's updates go to the server together: a row another process deleted in the
    /// middle of them still fails the save with `rowMissing` naming that row, and the rows
    /// before and after it are not written either.
    @Test func aRowDeletedAmongPipelinedUpdatesFailsTheWholeSave() throws {
        let url = try PostgresServer.newDatabase()
        let container = try PersistentContainer(for: Reading.self, postgres: url)
        let context = ManagedObjectContext(container)
        let readings = insertReadings(1...3, into: context)
        try context.save()
        let gone = try #require(readings[1].objectID.rowID)
        try PostgresConnection(url).execute(#"DELETE FROM "Reading" WHERE "_pk" = $1"#, [.integer(gone)])
        for reading in readings { reading.name = "edited" }
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .rowMissing)
        #expect(error?.entity == "Reading")
        #expect(error?.message.contains("row \(gone) ") == true)
        #expect(context.hasChanges, "the failed save keeps the context's changes")
        let names = try PostgresConnection(url).execute(#"SELECT "name" FROM "Reading" ORDER BY "id""#)
        #expect((0..<names.rowCount).map { names.text($0, 0) } == ["", ""])
    }
}
