import Foundation
import Stash
import StashPostgres
import Testing

/// One data set in an SQLite file and in a PostgreSQL database: every predicate, order,
/// page and count gives the same rows in the same order on both.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct SameAnswersTests {
    static let names = [
        "apple", "Apple", "banana", "Émile", "emile", "zebra", "Zoë", "", "a b", "ant", "Banana", "ärger", "100",
        "9", "x\u{301}", "naïve", "nai\u{308}ve", "b", "Bob", "🍏",
    ]

    /// The same 60 readings in both stores.
    static func fill(_ container: PersistentContainer) throws {
        let context = ManagedObjectContext(container)
        for id in 0..<60 {
            let reading = Reading(context: context)
            reading.id = id
            reading.name = names[id % names.count]
            reading.score = Double((id * 37) % 23) / 4 - 2
            reading.flag = id % 3 == 0
            reading.taken = Date(timeIntervalSince1970: 1_700_000_000 + Double((id * 7919) % 1000) * 3600.5)
            reading.price = Decimal(string: ["9.5", "10", "10.00", "-3", "100.25", "0.001", "2"][id % 7])!
            reading.note = id % 4 == 0 ? nil : ["a", "b", "A", "c"][id % 4]
            reading.tags = id % 5 == 0 ? [] : ["t\(id % 3)", "all"]
            reading.small = Int32(id % 9)
            reading.link = id % 6 == 0 ? nil : URL(string: "https://example.com/\(id % 4)")
        }
        try context.save()
    }

    /// The ids each store answers, in its order.
    static func ids(_ descriptor: FetchDescriptor<Reading>, _ containers: [PersistentContainer]) throws -> [[Int]] {
        try containers.map { container in
            try ManagedObjectContext(container).fetch(descriptor).map(\.id)
        }
    }

    @Test func predicatesSortsAndPagesAgree() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stash-pg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try PersistentContainer(for: Reading.self, storeURL: directory.appendingPathComponent("s.sqlite"))
        let postgres = try PersistentContainer(for: Reading.self, postgres: try PostgresServer.newDatabase())
        try Self.fill(sqlite)
        try Self.fill(postgres)
        let both = [sqlite, postgres]
        let cutoff = Date(timeIntervalSince1970: 1_700_000_000 + 500 * 3600)
        let chosen = [3, 5, 8, 13, 21, 34, 55, 89]
        let ten = Decimal(10)
        let predicates: [(String, Predicate<Reading>)] = [
            ("score >", #Predicate { $0.score > 1.5 }),
            ("name <", #Predicate { $0.name < "b" }),
            ("name >=", #Predicate { $0.name >= "Z" }),
            ("note == nil", #Predicate { $0.note == nil }),
            ("note != a", #Predicate { $0.note != "a" }),
            ("flag", #Predicate { $0.flag }),
            ("!flag && small", #Predicate { !$0.flag && $0.small >= 3 }),
            ("contains", #Predicate { $0.name.contains("an") }),
            ("starts", #Predicate { $0.name.starts(with: "B") }),
            ("in list", #Predicate { chosen.contains($0.id) }),
            ("tags", #Predicate { $0.tags.contains("t1") }),
            ("decimal >", #Predicate { $0.price > ten }),
            ("decimal ==", #Predicate { $0.price == ten }),
            ("date", #Predicate { $0.taken > cutoff }),
            ("or", #Predicate { $0.id < 5 || $0.note == "c" }),
            ("arithmetic", #Predicate { $0.small * 2 + 1 > 9 }),
            ("optional url", #Predicate { $0.link != nil }),
            ("coalesce", #Predicate { ($0.note ?? "z") > "b" }),
            ("ternary", #Predicate { ($0.flag ? $0.small : 0) > 4 }),
            ("empty name", #Predicate { $0.name.isEmpty }),
        ]
        for (label, predicate) in predicates {
            let answers = try Self.ids(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.id)]), both)
            #expect(answers[0] == answers[1], "\(label)")
            #expect(!answers[0].isEmpty || label == "empty name", "\(label) selects nothing: a weak comparison")
            let counts = try both.map { try ManagedObjectContext($0).fetchCount(FetchDescriptor(predicate: predicate)) }
            #expect(counts[0] == counts[1] && counts[0] == answers[0].count, "\(label) count")
        }
        let sorts: [(String, [SortDescriptor<Reading>])] = [
            ("name", [SortDescriptor(\.name)]),
            ("name reverse", [SortDescriptor(\.name, order: .reverse)]),
            ("note (nil first)", [SortDescriptor(\.note), SortDescriptor(\.id)]),
            ("note reverse (nil last)", [SortDescriptor(\.note, order: .reverse)]),
            ("price (by value)", [SortDescriptor(\.price), SortDescriptor(\.id, order: .reverse)]),
            ("score, taken", [SortDescriptor(\.score, order: .reverse), SortDescriptor(\.taken)]),
            ("small, name", [SortDescriptor(\.small), SortDescriptor(\.name, order: .reverse)]),
        ]
        for (label, sort) in sorts {
            var descriptor = FetchDescriptor<Reading>(sortBy: sort)
            let all = try Self.ids(descriptor, both)
            #expect(all[0] == all[1], "\(label)")
            #expect(all[0].count == 60)
            descriptor.fetchOffset = 7
            descriptor.fetchLimit = 11
            let page = try Self.ids(descriptor, both)
            #expect(page[0] == page[1], "\(label) page")
            #expect(page[0] == Array(all[0][7..<18]), "\(label) page")
        }
    }
}
