import Foundation
import Testing

@testable import Stash

/// Many-to-many relationships through a join table: both sides in step, the owning side's
/// order kept, only changed rows written, gone with either object, queried with a join.
@Suite(.bothStores) struct GraphManyToManyTests {
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func theJoinTableIsNamedAfterTheOwningSide() throws
    {
        let directory = try TemporaryDirectory()
        _ = try ticketContainer(at: directory.file())
        let tables = try sqliteShell(
            directory.file(),
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT GLOB 'sqlite_*' AND name NOT GLOB '_stash_*' ORDER BY name"
        )
        #expect(tables == "Member\nTicket\nTicket_assignees\nTicket_topics\nTopic\n")
        let sql = try sqliteShell(directory.file(), "SELECT sql FROM sqlite_master WHERE name = 'Ticket_topics'")
        #expect(
            sql
                == #"CREATE TABLE "Ticket_topics" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "Ticket" INTEGER NOT NULL REFERENCES "Ticket" ("_pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "topics" INTEGER NOT NULL REFERENCES "Topic" ("_pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "position" INTEGER NOT NULL)"#
                + "\n")
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs")) func reimportingListsReadsTheJoinRowsOnceAtTheSave()
        throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        func payload(_ changed: Bool) -> Data {
            let tickets = (1...30).map { number in
                let topics = changed && number == 7 ? #"["ui"]"# : #"["bug", "ui"]"#
                return #"{"number": \#(number), "topics": \#(topics), "assignees": [{"login": "octocat"}]}"#
            }
            return json("[" + tickets.joined(separator: ", ") + "]")
        }
        do {
            let context = ManagedObjectContext(try ticketContainer(at: file))
            _ = try recipeDecoder(context).decode([Ticket].self, from: payload(false))
            try context.save()
        }
        // The same lists again: no query per ticket, nothing written.
        let container = try ticketContainer(at: file)
        let store = try #require(container.store as? SQLiteStore)
        let watcher = try ticketContainer(at: file)
        let token = try watcher.store.changeToken()
        let context = ManagedObjectContext(container)
        var before = store.statementsRun
        _ = try recipeDecoder(context).decode([Ticket].self, from: payload(false))
        try context.save()
        #expect(store.statementsRun - before < 15)
        #expect(try watcher.store.changeToken() == token)

        // One ticket loses a topic: only its rows are written, and the topic's loaded list
        // lets it go.
        let bug = try #require(
            try context.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == "bug" })).first)
        #expect(bug.tickets.count == 30)
        before = store.statementsRun
        let tickets = try recipeDecoder(context).decode([Ticket].self, from: payload(true))
        #expect(tickets[6].topics.map(\.name) == ["ui"])
        try context.save()
        #expect(store.statementsRun - before < 15)
        #expect(bug.tickets.count == 29)
        #expect(!bug.tickets.contains { $0.number == 7 })
        #expect(try sqliteShell(file, "SELECT count(*) FROM Ticket_topics") == "59\n")
        #expect(try sqliteShell(file, "SELECT count(*) FROM Ticket_assignees") == "30\n")
        let fresh = ManagedObjectContext(try ticketContainer(at: file))
        let seven = try #require(
            try fresh.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.number == 7 })).first)
        #expect(seven.topics.map(\.name) == ["ui"])
    }

    @Test func bothSidesInStepAndTheOrderComesBack() throws {
        let directory = try TemporaryDirectory()
        let container = try ticketContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        let bug = Topic(context: context)
        bug.name = "bug"
        let ui = Topic(context: context)
        ui.name = "ui"
        let first = Ticket(context: context)
        first.number = 1
        first.topics = [ui, bug]
        #expect(bug.tickets.map(\.number) == [1])
        let second = Ticket(context: context)
        second.number = 2
        // From the other side: the ticket's list follows.
        bug.tickets = [first, second]
        #expect(second.topics.map(\.name) == ["bug"])
        let octocat = Member(context: context)
        octocat.login = "octocat"
        let hubot = Member(context: context)
        hubot.login = "hubot"
        first.assignees = [hubot, octocat]
        try context.save()
        #expect(!context.hasChanges)
        #expect(
            try sqliteShell(
                directory.file(),
                "SELECT t.number, p.name, j.position FROM Ticket_topics j JOIN Ticket t ON t._pk = j.Ticket JOIN Topic p ON p._pk = j.topics ORDER BY t.number, j.position"
            )
                == "1|ui|0\n1|bug|1\n2|bug|0\n")

        let fresh = ManagedObjectContext(try ticketContainer(at: directory.file()))
        let tickets = try fresh.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.number)]))
        #expect(tickets[0].topics.map(\.name) == ["ui", "bug"])
        #expect(tickets[0].assignees.map(\.login) == ["hubot", "octocat"])
        let loadedBug = try #require(tickets[0].topics.last)
        #expect(loadedBug.tickets.map(\.number) == [1, 2])
        // Reorder and drop, then read back.
        tickets[0].topics = [loadedBug]
        #expect(fresh.hasChanges)
        try fresh.save()
        let again = ManagedObjectContext(container)
        let reread = try again.fetch(FetchDescriptor<Topic>(sortBy: [SortDescriptor(\.name)]))
        #expect(reread.map { $0.tickets.map(\.number) } == [[1, 2], []])
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func deletingEitherSideRemovesItsPairs() throws
    {
        let directory = try TemporaryDirectory()
        let container = try ticketContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [Ticket].self,
            from: json(
                #"[{"number": 1, "topics": ["bug", "ui"], "assignees": [{"login": "octocat"}]}, {"number": 2, "topics": [{"name": "bug"}]}]"#
            ))
        try context.save()
        let bug = try #require(
            try context.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == "bug" })).first)
        let first = try #require(bug.tickets.first)
        context.delete(bug)
        #expect(first.topics.map(\.name) == ["ui"])
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Ticket_topics") == "1\n")
        let octocat = try #require(first.assignees.first)
        context.delete(octocat)
        #expect(first.assignees.isEmpty)
        context.delete(first)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Ticket_topics") == "0\n")
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Ticket_assignees") == "0\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA foreign_key_check") == "")
    }

    @Test func reimportingTheSameListsWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let container = try ticketContainer(at: directory.file())
        let payload = json(#"[{"number": 1, "topics": ["bug", "ui"]}, {"number": 2, "topics": ["ui"]}]"#)
        let first = ManagedObjectContext(container)
        _ = try recipeDecoder(first).decode([Ticket].self, from: payload)
        try first.save()
        let watcher = try ticketContainer(at: directory.file())
        let token = try watcher.store.changeToken()
        let again = ManagedObjectContext(container)
        _ = try recipeDecoder(again).decode([Ticket].self, from: payload)
        try again.save()
        #expect(try watcher.store.changeToken() == token)
        _ = try recipeDecoder(again).decode([Ticket].self, from: json(#"[{"number": 2, "topics": ["bug", "ui"]}]"#))
        try again.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Ticket_topics") == "4\n")
    }

    @Test func queriesJoinThroughTheTable() throws {
        let container = try ticketContainer()
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [Ticket].self,
            from: json(#"[{"number": 1, "topics": ["bug", "ui"]}, {"number": 2, "topics": ["ui"]}, {"number": 3}]"#))
        try context.save()
        let (sql, parameters) = try condition(#Predicate<Ticket> { $0.topics.contains { $0.name == "bug" } })
        #expect(
            sql
                == #"EXISTS (SELECT 1 FROM "Ticket_topics" AS "j1" JOIN "Topic" AS "r1" ON "r1"."_pk" = "j1"."topics" WHERE "j1"."Ticket" = "Ticket"."_pk" AND ("r1"."name" = ?))"#
        )
        #expect(parameters == [.text("bug")])
        let fresh = ManagedObjectContext(container)
        #expect(
            try fresh.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.topics.contains { $0.name == "bug" } }))
                .map(\.number) == [1])
        #expect(
            try fresh.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.topics.isEmpty })).map(\.number) == [3])
        #expect(
            try fresh.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.tickets.count == 2 })).map(\.name) == [
                "ui"
            ])
    }
}
