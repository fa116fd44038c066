import Foundation
import Stash
import Testing

/// A list changed in this context (reordered, or a many-to-many list appended to) is the
/// truth until saved; a member another context deleted meanwhile must still leave it.
@Suite(.bothStores) struct ChangedListDeletedElsewhereTests {
    @Test func aReorderedListLetsGoOfABookAnotherContextDeleted() throws {
        let container = try graphContainer()
        let setup = ManagedObjectContext(container)
        let writer = insertWriter(1, "W", in: setup)
        insertBooks([1, 2, 3], by: writer, in: setup)
        try setup.save()
        let a = ManagedObjectContext(container)
        let mine = try a.fetch(FetchDescriptor<Writer>())[0]
        #expect(mine.books.map(\.id) == [1, 2, 3])
        mine.books = mine.books.reversed()
        let b = ManagedObjectContext(container)
        b.delete(try b.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 2 }))[0])
        try b.save()
        _ = try a.fetch(FetchDescriptor<Writer>())  // merges b's save
        #expect(mine.books.map(\.id) == [3, 1])
    }

    @Test func aChangedManyToManyListLetsGoOfATopicAnotherContextDeleted() throws {
        let container = try ticketContainer()
        let setup = ManagedObjectContext(container)
        _ = try setup.decode(
            [Ticket].self,
            from: json(#"[{"number": 1, "title": "T", "topics": [{"name": "a"}, {"name": "b"}], "assignees": []}]"#))
        try setup.save()
        let a = ManagedObjectContext(container)
        let ticket = try a.fetch(FetchDescriptor<Ticket>())[0]
        #expect(ticket.topics.map(\.name) == ["a", "b"])
        let c = Topic(context: a)
        c.name = "c"
        ticket.topics.append(c)
        let b = ManagedObjectContext(container)
        b.delete(try b.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == "a" }))[0])
        try b.save()
        _ = try a.fetch(FetchDescriptor<Ticket>())  // merges b's save
        #expect(ticket.topics.map(\.name) == ["b", "c"])
    }
}
