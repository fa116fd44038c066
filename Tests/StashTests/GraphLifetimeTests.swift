import Foundation
import Testing

@testable import Stash

/// Related objects a context set or changed do not keep each other alive once saved: a
/// to-one relationship holds its target, a to-many list of saved objects only names them.
/// Without that, a writer's list and each book's writer made a cycle that nothing broke, and
/// every object of a graph an app imported (with its context, its container and the store's
/// connections) stayed in memory until `reset()`. Lists loaded by reading still hold their
/// objects, as Core Data's do (a prefetch or a loop over `writer.books` reads them once):
/// `reset()` lets such a graph go.
@Suite(.bothStores) struct GraphLifetimeTests {
    /// Objects made and related in code, saved, then let go.
    @Test func aSavedGraphIsFreed() throws {
        let container = try graphContainer()
        let freed = FreedWatch()
        do {
            let context = ManagedObjectContext(container)
            freed.watch(context, as: "context")
            let ursula = insertWriter(1, "Ursula", in: context)
            insertBooks([10, 11], by: ursula, in: context)
            let review = Review(context: context)
            review.id = 100
            review.book = ursula.books[0]
            #expect(ursula.books.map(\.id) == [10, 11])
            freed.watch(ursula.books[0], as: "book")
            try context.save()
            freed.watch(ursula, as: "writer")
        }
        #expect(freed.survivors.isEmpty)
    }

    /// Read from both sides, in either order: a writer's loaded list holds its books, and the
    /// books name their writer by row, so letting go of them frees them all.
    @Test func aGraphReadFromBothSidesIsFreed() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let freed = FreedWatch()
        do {
            let context = ManagedObjectContext(container)
            freed.watch(context, as: "context")
            // The books' writers first, then the writers' books.
            let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
            let first = try #require(books[0].writer)
            #expect(books.map(\.writer?.name) == ["Ursula", "Ursula", "Octavia"])
            #expect(first.books.map(\.id) == [10, 11])
            #expect(first.books.allSatisfy { $0.writer === first })
            #expect(books[0].writer === first)
            // And the other way round, with a prefetch.
            var descriptor = FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)])
            descriptor.relationshipKeyPathsForPrefetching = [\.books]
            let writers = try context.fetch(descriptor)
            #expect(writers[1].books.map(\.id) == [20])
            #expect(writers[1].books[0].writer === writers[1])
            #expect(writers[1].books[0].reviews.map(\.book?.id) == [20])
            #expect(books[0].reviews.map(\.book?.id) == [10, 10])
            freed.watch(first, as: "writer")
            freed.watch(books[0], as: "book")
        }
        #expect(freed.survivors.isEmpty)
    }

    /// Books whose writer is named by row (their writer's list is loaded) move between
    /// writers as before, in this context and from another.
    @Test func booksNamedByRowStillMoveBetweenWriters() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        let books = writers[0].books
        #expect(books.map(\.id) == [10, 11])
        #expect(books[1].writer === writers[0])
        books[1].writer = writers[1]
        #expect(writers[0].books.map(\.id) == [10])
        #expect(writers[1].books.map(\.id).sorted() == [11, 20])
        try context.save()
        #expect(writers[0].books.map(\.id) == [10])
        #expect(writers[1].books.map(\.id).sorted() == [11, 20])
        // Another context moves book 10 too: this one's lists and books follow.
        let other = ManagedObjectContext(container)
        let ten = try #require(try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        ten.writer = try other.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 2 })).first
        try other.save()
        _ = try context.fetch(FetchDescriptor<Book>())
        #expect(writers[0].books.isEmpty)
        #expect(writers[1].books.map(\.id).sorted() == [10, 11, 20])
        #expect(books[0].writer === writers[1])
        #expect(books.allSatisfy { $0.writer === writers[1] })
    }

    /// A list emptied without being read (its save let go of it, or it was never loaded)
    /// is a change the next save writes: the members lose their owner, the links go.
    @Test func aListEmptiedWithoutBeingReadIsSaved() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let writer = try #require(
            try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 })).first)
        writer.books = []
        #expect(context.hasChanges)
        try context.save()
        let check = ManagedObjectContext(container)
        let books = try check.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(books.map { $0.writer?.id } == [nil, nil, 2])
        // Set, saved (which lets go of the list), then emptied.
        writer.books = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id < 20 }))
        try context.save()
        #expect(writer.toManyLists?[0] == nil)
        let relinked = ManagedObjectContext(container)
        #expect(
            try relinked.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])).map { $0.writer?.id } == [
                1, 1, 2,
            ])
        writer.books = []
        #expect(context.hasChanges)
        try context.save()
        let again = ManagedObjectContext(container)
        #expect(
            try again.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])).map { $0.writer?.id } == [
                nil, nil, 2,
            ])
    }

    /// The same for the owning side of a many-to-many list, and through a decoded `[]`.
    @Test func aManyToManyListEmptiedWithoutBeingReadIsSaved() throws {
        let container = try ticketContainer()
        let context = ManagedObjectContext(container)
        let bugs = Topic(context: context)
        bugs.name = "bugs"
        let ticket = Ticket(context: context)
        ticket.number = 1
        ticket.title = "One"
        ticket.topics = [bugs]
        try context.save()
        ticket.topics = []
        #expect(context.hasChanges)
        try context.save()
        let check = ManagedObjectContext(container)
        #expect(try check.fetch(FetchDescriptor<Ticket>()).first?.topics.map(\.name) == [])
        // Linked again, saved, then emptied by a payload.
        ticket.topics = [bugs]
        try context.save()
        let relinked = ManagedObjectContext(container)
        #expect(try relinked.fetch(FetchDescriptor<Ticket>()).first?.topics.map(\.name) == ["bugs"])
        _ = try context.decode(Ticket.self, from: Data(#"{"number": 1, "title": "One", "topics": []}"#.utf8))
        try context.save()
        let again = ManagedObjectContext(container)
        #expect(try again.fetch(FetchDescriptor<Ticket>()).first?.topics.map(\.name) == [])
        #expect(try again.fetch(FetchDescriptor<Topic>()).first?.tickets.map(\.number) == [])
    }

    /// After a save let go of the list it wrote, another context moves the data on: this
    /// context's next reads see the store as it is now, twice over, and no deleted writer
    /// comes back.
    @Test func aListLetGoAfterItsSaveIsReadAsTheStoreHasItSince() throws {
        let container = try graphContainer()
        let context = ManagedObjectContext(container)
        let writer = insertWriter(1, "Ursula", in: context)
        insertBooks([10, 11], by: writer, in: context)
        try context.save()
        let eleven = try #require(writer.books.first { $0.id == 11 })
        let other = ManagedObjectContext(container)
        let otherWriter = try #require(try other.fetch(FetchDescriptor<Writer>()).first)
        try other.delete(#require(try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first))
        let twelve = Book(context: other)
        twelve.id = 12
        twelve.writer = otherWriter
        try other.save()
        _ = try context.fetch(FetchDescriptor<Book>())
        #expect(writer.books.map(\.id).sorted() == [11, 12])
        // Again: the writer goes, and its books lose it.
        for book in try other.fetch(FetchDescriptor<Book>()) { book.writer = nil }
        other.delete(otherWriter)
        try other.save()
        _ = try context.fetch(FetchDescriptor<Book>())
        #expect(eleven.writer == nil)
        #expect(try context.fetch(FetchDescriptor<Writer>()).isEmpty)
        #expect(try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)])).map(\.id) == [11, 12])
    }

    /// Many-to-many lists read from both sides hold each other, as Core Data's do;
    /// `reset()` lets them go.
    @Test func aManyToManyGraphReadFromBothSidesIsFreedByReset() throws {
        let container = try ticketContainer()
        do {
            let context = ManagedObjectContext(container)
            let bugs = Topic(context: context)
            bugs.name = "bugs"
            let ticket = Ticket(context: context)
            ticket.number = 1
            ticket.topics = [bugs]
            try context.save()
        }
        let freed = FreedWatch()
        do {
            let context = ManagedObjectContext(container)
            freed.watch(context, as: "context")
            let topic = try #require(try context.fetch(FetchDescriptor<Topic>()).first)
            #expect(topic.tickets.map(\.number) == [1])
            #expect(topic.tickets[0].topics.map(\.name) == ["bugs"])
            freed.watch(topic.tickets[0], as: "ticket")
            context.reset()
        }
        #expect(freed.survivors.isEmpty)
    }

    /// A graph decoded with its nested objects and saved: nothing of it stays once the app
    /// lets go.
    @Test func anImportedGraphIsFreedAfterItsSave() throws {
        let container = try graphContainer()
        let freed = FreedWatch()
        do {
            let context = ManagedObjectContext(container)
            freed.watch(context, as: "context")
            let json = Data(
                #"[{"id": 1, "name": "Ursula", "books": [{"id": 10, "title": "A"}, {"id": 11, "title": "B"}]}]"#
                    .utf8)
            let writers = try context.decode([Writer].self, from: json)
            let first = try #require(writers[0].books.first)
            freed.watch(first, as: "book")
            try context.save()
            freed.watch(writers[0], as: "writer")
            #expect(first.writer === writers[0])
            #expect(first.title == "A")
        }
        #expect(freed.survivors.isEmpty)
        let books = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(books.map(\.writer?.name) == ["Ursula", "Ursula"])
    }

    /// Many-to-many lists set in code, saved, then let go.
    @Test func aSavedManyToManyGraphIsFreed() throws {
        let container = try ticketContainer()
        let freed = FreedWatch()
        do {
            let context = ManagedObjectContext(container)
            freed.watch(context, as: "context")
            let bugs = Topic(context: context)
            bugs.name = "bugs"
            for number in 1...3 {
                let made = Ticket(context: context)
                made.number = number
                made.topics = [bugs]
            }
            #expect(bugs.tickets.map(\.number) == [1, 2, 3])
            freed.watch(bugs.tickets[0], as: "ticket")
            try context.save()
            freed.watch(bugs, as: "topic")
        }
        #expect(freed.survivors.isEmpty)
        let check = ManagedObjectContext(container)
        let bugs = try #require(try check.fetch(FetchDescriptor<Topic>()).first)
        #expect(bugs.tickets.map(\.number) == [1, 2, 3])
    }

    /// A saved list whose members were freed is read again from the store, whole: a freed
    /// member is a saved, unchanged row, never one left out.
    @Test func aSavedListWhoseMembersWereFreedIsReadAgainWhole() throws {
        let container = try graphContainer()
        let context = ManagedObjectContext(container)
        let writer = insertWriter(1, "Ursula", in: context)
        let other = insertWriter(2, "Octavia", in: context)
        weak var first: Book?
        do {
            insertBooks([10, 11], by: writer, in: context)
            first = writer.books.first
            #expect(writer.books.map(\.id) == [10, 11])
            try context.save()
        }
        // The save let go of the list it wrote, and with it of the books nothing else held.
        #expect(first == nil)
        #expect(writer.toManyLists?[0] == nil)
        #expect(writer.books.map(\.id) == [10, 11])
        // Still whole with unsaved changes beside it: a new book joins, a moved one leaves.
        let moved = try #require(writer.books.first { $0.id == 11 })
        moved.writer = other
        let added = Book(context: context)
        added.id = 12
        added.writer = writer
        #expect(writer.books.map(\.id) == [10, 12])
        try context.save()
        #expect(writer.books.map(\.id) == [10, 12])
        #expect(other.books.map(\.id) == [11])
    }

    /// What the app changed is held until saved, even when the app holds none of it: a
    /// changed many-to-many list keeps its members, a new member its list's owner.
    @Test func unsavedListChangesHoldTheirObjectsUntilTheSave() throws {
        let container = try ticketContainer()
        do {
            let context = ManagedObjectContext(container)
            for name in ["bugs", "ideas"] {
                let topic = Topic(context: context)
                topic.name = name
            }
            let ticket = Ticket(context: context)
            ticket.number = 1
            try context.save()
        }
        let context = ManagedObjectContext(container)
        do {
            let ticket = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
            let topics = try context.fetch(FetchDescriptor<Topic>(sortBy: [SortDescriptor(\.name)]))
            ticket.topics = topics
            // Read from the other side too, so both lists are loaded.
            #expect(topics[0].tickets.map(\.number) == [1])
        }
        try context.save()
        let check = ManagedObjectContext(container)
        let ticket = try #require(try check.fetch(FetchDescriptor<Ticket>()).first)
        #expect(ticket.topics.map(\.name) == ["bugs", "ideas"])
        let ideas = try #require(
            try check.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.name == "ideas" })).first)
        #expect(ideas.tickets.map(\.number) == [1])
    }

    /// Objects made outside any context keep their lists whole: inserting the parent later
    /// inserts the children, which nothing else holds.
    @Test func listsOfObjectsInNoContextHoldTheirMembers() throws {
        let container = try graphContainer()
        let context = ManagedObjectContext(container)
        let writer = Writer()
        writer.id = 7
        writer.name = "Le Guin"
        do {
            let book = Book()
            book.id = 70
            book.title = "The Dispossessed"
            writer.books = [book]
        }
        #expect(writer.books.map(\.id) == [70])
        context.insert(writer)
        try context.save()
        let books = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>())
        #expect(books.map(\.title) == ["The Dispossessed"])
        #expect(books.first?.writer?.name == "Le Guin")
    }
}
