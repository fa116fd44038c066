import Foundation
import Stash
import StashPostgres
import Testing

/// The same models, contexts, upserts and saves on PostgreSQL as on SQLite: each test runs
/// on both stores.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresStoreTests {
    @Test(arguments: StoreKind.allCases) func everyTypeRoundTrips(kind: StoreKind) throws {
        let store = try kind.newStore()
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let text = "Zürich naïve 🧑‍💻 — \"quoted\" 'single' \n tab\t end \\ {a,b}"
        do {
            let context = ManagedObjectContext(try store.open(Reading.self))
            let reading = Reading(context: context)
            reading.id = 1
            reading.name = text
            reading.score = 0.1 + 0.2
            reading.flag = true
            reading.taken = date
            reading.price = Decimal(string: "12345678901234567890.123456789")!
            reading.link = URL(string: "https://example.com/a%20b?q=1&r=é#frag")!
            reading.token = uuid
            reading.data = Data([0, 1, 2, 255, 0])
            reading.tags = ["a", "b,c", "☃"]
            reading.note = nil
            reading.small = .min
            reading.big = UInt64(Int64.max)
            let empty = Reading(context: context)
            empty.id = 2
            try context.save()
        }
        let context = ManagedObjectContext(try store.open(Reading.self))
        let readings = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
        try #require(readings.count == 2)
        let reading = readings[0]
        #expect(reading.name == text)
        #expect(reading.score == 0.1 + 0.2)
        #expect(reading.flag)
        #expect(reading.taken == date)
        #expect(reading.price == Decimal(string: "12345678901234567890.123456789")!)
        #expect(reading.link == URL(string: "https://example.com/a%20b?q=1&r=é#frag")!)
        #expect(reading.token == uuid)
        #expect(reading.data == Data([0, 1, 2, 255, 0]))
        #expect(reading.tags == ["a", "b,c", "☃"])
        #expect(reading.note == nil)
        #expect(reading.small == .min)
        #expect(reading.big == UInt64(Int64.max))
        let empty = readings[1]
        #expect(empty.name == "" && empty.tags == [] && empty.link == nil && empty.data == nil && !empty.flag)
    }

    @Test(arguments: StoreKind.allCases) func reimportUpsertsOnTheUniqueKey(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Reading.self)
        do {
            let context = ManagedObjectContext(container)
            _ = try decoder(context).decode(
                [Reading].self, from: json(#"[{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]"#))
            try context.save()
        }
        // A fresh container and context: the match is the store's, not a context's memory.
        let again = ManagedObjectContext(try store.open(Reading.self))
        _ = try decoder(again).decode(
            [Reading].self, from: json(#"[{"id": 2, "name": "deux"}, {"id": 3, "name": "three"}]"#))
        try again.save()
        let check = ManagedObjectContext(container)
        let names = try check.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)])).map(\.name)
        #expect(names == ["one", "deux", "three"])
        #expect(try check.fetchCount(FetchDescriptor<Reading>()) == 3)
    }

    @Test(arguments: StoreKind.allCases) func compositeKeyUpserts(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Slot.self)
        for label in ["first", "second"] {
            let context = ManagedObjectContext(container)
            _ = try decoder(context).decode(
                [Slot].self,
                from: json(
                    #"[{"shelf": "a", "code": 1, "label": "\#(label)"}, {"shelf": "b", "code": 1, "label": "\#(label)"}]"#
                ))
            try context.save()
        }
        let context = ManagedObjectContext(container)
        let slots = try context.fetch(FetchDescriptor<Slot>(sortBy: [SortDescriptor(\.shelf)]))
        #expect(slots.map(\.shelf) == ["a", "b"])
        #expect(slots.map(\.label) == ["second", "second"])
    }

    @Test(arguments: StoreKind.allCases) func aFailedSaveWritesNothing(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Reading.self)
        let context = ManagedObjectContext(container)
        for id in 1...3 {
            let reading = Reading(context: context)
            reading.id = id
            reading.name = "r\(id)"
        }
        let bad = Reading(context: context)
        bad.id = 4
        bad.big = .max  // more than a stored integer holds: the save fails midway
        #expect(throws: StashError.self) { try context.save() }
        let fresh = ManagedObjectContext(try store.open(Reading.self))
        #expect(try fresh.fetchCount(FetchDescriptor<Reading>()) == 0)
        // The context still holds its changes: fixed, they save.
        bad.big = 7
        try context.save()
        #expect(try fresh.fetchCount(FetchDescriptor<Reading>()) == 4)
    }

    @Test(arguments: StoreKind.allCases) func theFailPolicyRefusesATakenUniqueValue(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Reading.self)
        let first = ManagedObjectContext(container)
        Reading(context: first).id = 1
        try first.save()
        let second = ManagedObjectContext(try store.open(Reading.self))
        second.mergePolicy = .fail
        let clash = Reading(context: second)
        clash.id = 1
        clash.name = "clash"
        let error = #expect(throws: StashError.self) { try second.save() }
        #expect(error?.code == .uniqueConflict)
        #expect(error?.entity == "Reading" && error?.attribute == "id")
    }

    @Test(arguments: StoreKind.allCases) func relationshipsAndCascadingDeletes(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Writer.self, Book.self)
        do {
            let context = ManagedObjectContext(container)
            _ = try decoder(context).decode(
                [Writer].self,
                from: json(
                    #"""
                    [{"id": 1, "name": "Le Guin", "books": [{"id": 10, "title": "Lathe"}, {"id": 11, "title": "Earthsea"}]},
                     {"id": 2, "name": "Banks", "books": [{"id": 20, "title": "Excession"}]}]
                    """#))
            try context.save()
        }
        let context = ManagedObjectContext(try store.open(Writer.self, Book.self))
        let guin = try #require(try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        #expect(Set(guin.books.map(\.title)) == ["Lathe", "Earthsea"])
        let byBanks = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.writer?.name == "Banks" }))
        #expect(byBanks.map(\.id) == [20])
        let prolific = try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.books.count > 1 }))
        #expect(prolific.map(\.id) == [1])
        context.delete(guin)
        try context.save()
        let check = ManagedObjectContext(container)
        #expect(try check.fetch(FetchDescriptor<Book>()).map(\.id) == [20])
    }

    @Test(arguments: StoreKind.allCases) func manyToManyListsKeepTheirOrder(kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try store.open(Ticket.self, Topic.self)
        for topics in [#"["bug", "ui", "db"]"#, #"["db", "bug"]"#] {
            let context = ManagedObjectContext(container)
            _ = try decoder(context).decode(
                [Ticket].self, from: json(#"[{"number": 1, "topics": \#(topics)}, {"number": 2, "topics": ["ui"]}]"#))
            try context.save()
        }
        let context = ManagedObjectContext(try store.open(Ticket.self, Topic.self))
        let tickets = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.number)]))
        #expect(tickets.map { $0.topics.map(\.name) } == [["db", "bug"], ["ui"]])
        let ui = try #require(
            try context.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == "ui" })).first)
        #expect(ui.tickets.map(\.number) == [2])
        let busy = try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.topics.count > 1 }))
        #expect(busy.map(\.number) == [1])
        #expect(try context.fetchCount(FetchDescriptor<Topic>()) == 3)
    }

    @Test(arguments: StoreKind.allCases) func twoContainersShareOneDatabase(kind: StoreKind) throws {
        let store = try kind.newStore()
        let one = try store.open(Reading.self, connections: 1)
        let two = try store.open(Reading.self, connections: 2)
        let writer = ManagedObjectContext(one)
        let reading = Reading(context: writer)
        reading.id = 1
        reading.name = "before"
        try writer.save()

        let reader = ManagedObjectContext(two)
        let seen = try #require(try reader.fetch(FetchDescriptor<Reading>()).first)
        #expect(seen.name == "before")
        reading.name = "after"
        try writer.save()
        // Another container committed: the next fetch takes the stored row into the object.
        let again = try #require(try reader.fetch(FetchDescriptor<Reading>()).first)
        #expect(again === seen)
        #expect(again.name == "after")
    }

    @Test func whatPostgreSQLCannotAnswerIsRefusedByName() throws {
        let url = try PostgresServer.newDatabase()
        let context = ManagedObjectContext(try PersistentContainer(for: Reading.self, postgres: url))
        let error = #expect(throws: StashError.self) {
            try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.name.count > 3 }))
        }
        #expect(error?.code == .unsupportedQuery)
        #expect(error?.message.contains("Characters") == true)
        #expect(throws: StashError.self) { try context.search(FetchDescriptor<Reading>(), matching: "x") }
    }

    /// SQLite keeps a NUL inside text; PostgreSQL cannot, and the save says so rather than
    /// cut the text at the NUL.
    @Test func textWithANulIsRefusedNotCut() throws {
        let url = try PostgresServer.newDatabase()
        let context = ManagedObjectContext(try PersistentContainer(for: Reading.self, postgres: url))
        for id in 1...3 {
            let reading = Reading(context: context)
            reading.id = id
            reading.name = id == 3 ? "before\u{0}after" : "fine"
        }
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .invalidValue && error?.entity == "Reading")
        #expect(error?.message.contains("U+0000") == true)
        let fresh = ManagedObjectContext(try PersistentContainer(for: Reading.self, postgres: url))
        #expect(try fresh.fetchCount(FetchDescriptor<Reading>()) == 0)
    }

    @Test func aWrongURLSaysWhy() throws {
        let error = #expect(throws: StashError.self) {
            _ = try PersistentContainer(for: Reading.self, postgres: "postgresql:///none?host=/nonexistent-dir")
        }
        #expect(error?.code == .storeFailed)
        #expect(error?.message.contains("cannot connect to PostgreSQL") == true)
    }
}
