import Foundation
import Testing

@testable import Stash

/// Two writers changing one many-to-many list: a save writes what its context changed since
/// it loaded the list, so additions and removals made by others survive it.
@Suite(.bothStores) struct JoinConcurrencyTests {
    /// A store with topics `x`, `y`, `a`, `b` and ticket 1 linked to `linked`, in this order.
    private func seed(_ linked: [String]) throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let context = ManagedObjectContext(try ticketContainer(at: file))
        let topics = ["x", "y", "a", "b"].map { name in
            let topic = Topic(context: context)
            topic.name = name
            return topic
        }
        let ticket = Ticket(context: context)
        ticket.number = 1
        ticket.topics = linked.map { name in topics.first { $0.name == name }! }
        try context.save()
        return (directory, file)
    }

    private func ticket(in context: ManagedObjectContext) throws -> Ticket {
        try #require(try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.number == 1 })).first)
    }

    private func topic(_ name: String, in context: ManagedObjectContext) throws -> Topic {
        try #require(try context.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == name })).first)
    }

    /// Ticket 1's topics as stored, in their order.
    private func storedTopics(_ file: URL) throws -> String {
        try sqliteShell(
            file,
            #"SELECT group_concat(name, ',') FROM (SELECT t.name FROM Ticket_topics j JOIN Topic t ON t._pk = j.topics "#
                + #"ORDER BY j.position, j._pk)"#
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func twoContextsAddingToOneListKeepBothAdditions() throws {
        let (directory, file) = try seed(["x"])
        defer { _ = directory }
        let container = try ticketContainer(at: file)
        let first = ManagedObjectContext(container)
        let second = ManagedObjectContext(container)
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(mine.topics.map(\.name) == ["x"])
        #expect(theirs.topics.map(\.name) == ["x"])
        mine.topics.append(try topic("a", in: first))
        theirs.topics.append(try topic("b", in: second))
        try first.save()
        try second.save()

        #expect(Set(try storedTopics(file).split(separator: ",")) == ["x", "a", "b"])
        // Each context shows the combined list, from either side.
        for context in [first, second] {
            let ticket = try ticket(in: context)
            #expect(Set(ticket.topics.map(\.name)) == ["x", "a", "b"])
            #expect(try topic("a", in: context).tickets.map(\.number) == [1])
            #expect(try topic("b", in: context).tickets.map(\.number) == [1])
        }
        // A third context, fresh, reads the same.
        #expect(Set(try ticket(in: ManagedObjectContext(container)).topics.map(\.name)) == ["x", "a", "b"])
    }

    @Test func twoContainersOnOneFileKeepBothAdditions() throws {
        let (directory, file) = try seed(["x"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(mine.topics.count == 1)
        #expect(theirs.topics.count == 1)
        mine.topics.append(try topic("a", in: first))
        theirs.topics.append(try topic("b", in: second))
        try first.save()
        try second.save()

        #expect(Set(try storedTopics(file).split(separator: ",")) == ["x", "a", "b"])
        for context in [first, second] {
            #expect(Set(try ticket(in: context).topics.map(\.name)) == ["x", "a", "b"])
        }
    }

    @Test func anAdditionRacingARemovalBothTakeEffect() throws {
        let (directory, file) = try seed(["x", "y"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(mine.topics.count == 2)
        #expect(theirs.topics.count == 2)
        mine.topics.removeAll { $0.name == "x" }
        theirs.topics.append(try topic("a", in: second))
        try first.save()
        try second.save()
        #expect(try storedTopics(file) == "y,a")
        #expect(try ticket(in: first).topics.map(\.name) == ["y", "a"])
        #expect(try ticket(in: second).topics.map(\.name) == ["y", "a"])

        // The other way round: the removal saved last.
        let third = ManagedObjectContext(try ticketContainer(at: file))
        let fourth = ManagedObjectContext(try ticketContainer(at: file))
        let adding = try ticket(in: third)
        let removing = try ticket(in: fourth)
        #expect(adding.topics.count == 2)
        #expect(removing.topics.count == 2)
        adding.topics.append(try topic("b", in: third))
        removing.topics.removeAll { $0.name == "y" }
        try third.save()
        try fourth.save()
        #expect(try storedTopics(file) == "a,b")
    }

    @Test func removingAMemberAnotherWriterRemovedIsNoErrorAndNoResurrection() throws {
        let (directory, file) = try seed(["x", "y"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(mine.topics.count == 2)
        #expect(theirs.topics.count == 2)
        mine.topics.removeAll { $0.name == "x" }
        mine.topics.append(try topic("a", in: first))
        theirs.topics.removeAll { $0.name == "x" }
        try first.save()
        try second.save()
        #expect(try storedTopics(file) == "y,a")
        #expect(try sqliteShell(file, "SELECT count(*) FROM Ticket_topics") == "2\n")
        #expect(try ticket(in: second).topics.map(\.name) == ["y", "a"])
    }

    /// The rule for order: the saving writer's order for the members it knows, then the
    /// members others added, in their stored order.
    @Test func anOrderedListKeepsTheSaversOrderThenOthersAdditions() throws {
        let (directory, file) = try seed(["x", "y"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(mine.topics.count == 2)
        #expect(theirs.topics.count == 2)
        mine.topics.append(try topic("a", in: first))
        theirs.topics = [try topic("y", in: second), try topic("x", in: second), try topic("b", in: second)]
        try first.save()
        try second.save()
        #expect(try storedTopics(file) == "y,x,b,a")
        #expect(try ticket(in: second).topics.map(\.name) == ["y", "x", "b", "a"])
        #expect(try ticket(in: first).topics.map(\.name) == ["y", "x", "b", "a"])
    }

    /// A list set without being read is a replacement: the user named the whole list.
    @Test func aListSetUnreadReplacesTheStoredOne() throws {
        let (directory, file) = try seed(["x"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let theirs = try ticket(in: second)
        let mine = try ticket(in: first)
        mine.topics.append(try topic("a", in: first))
        try first.save()
        theirs.topics = [try topic("b", in: second)]
        try second.save()
        #expect(try storedTopics(file) == "b")
        #expect(try ticket(in: first).topics.map(\.name) == ["b"])
    }

    /// A list decoded under `.replace` is a replacement: it becomes the payload's, whatever
    /// another writer added since it was read, even over this context's own unsaved edit.
    @Test func aDecodedReplacementIsThePayloadsList() throws {
        let (directory, file) = try seed(["x"])
        defer { _ = directory }
        let first = ManagedObjectContext(try ticketContainer(at: file))
        let second = ManagedObjectContext(try ticketContainer(at: file))
        let mine = try ticket(in: first)
        let theirs = try ticket(in: second)
        #expect(theirs.topics.count == 1)
        theirs.topics.append(try topic("y", in: second))
        mine.topics.append(try topic("a", in: first))
        try first.save()
        _ = try recipeDecoder(second).decode(
            [Ticket].self, from: json(#"[{"number": 1, "topics": [{"name": "y"}, {"name": "b"}]}]"#))
        try second.save()
        #expect(try storedTopics(file) == "y,b")
        #expect(try ticket(in: second).topics.map(\.name) == ["y", "b"])
    }
}
