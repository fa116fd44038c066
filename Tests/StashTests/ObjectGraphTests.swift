import Foundation
import Testing

@testable import Stash

/// The context's object graph alone: the object a related row names, lists read again once
/// the graph's generation moved, and the changed lists a rollback forgets.
@Suite struct ObjectGraphTests {
    /// Writer 1 with books 10 and 11, saved; a fresh context on the same store.
    private func savedWriter() throws -> (TemporaryDirectory, PersistentContainer) {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        insertBooks([10, 11], by: insertWriter(1, "Ursula", in: context), in: context)
        try context.save()
        return (directory, container)
    }

    @Test func aRelatedRowIsTheObjectHeldOrOneReadFromTheStore() throws {
        let (directory, container) = try savedWriter()
        defer { withExtendedLifetime(directory) {} }
        let context = ManagedObjectContext(container)
        let book = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))[0]
        let writerOfBook = try #require(book.entity.relationships.first { $0.name == "writer" })
        let rowID = try #require(try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>())[0].objectID.rowID)
        let graph = context.graph
        #expect(context.identity.registeredObject(forRow: rowID, of: Writer.self) == nil)
        let writer = try #require(graph.relatedObject(forRow: rowID, of: writerOfBook) as? Writer)
        #expect(writer.name == "Ursula" && writer.managedObjectContext === context)
        #expect(graph.relatedObject(forRow: rowID, of: writerOfBook) === writer)
        #expect(context.identity.registeredObject(forRow: rowID, of: Writer.self) === writer)
        #expect(graph.relatedObject(forRow: rowID + 100, of: writerOfBook) == nil)
        #expect(book.writer === writer)
    }

    @Test func aListIsReadAgainOnceTheGenerationMoved() throws {
        let (directory, container) = try savedWriter()
        defer { withExtendedLifetime(directory) {} }
        let context = ManagedObjectContext(container)
        let writer = try context.fetch(FetchDescriptor<Writer>())[0]
        #expect(writer.books.map(\.id).sorted() == [10, 11])
        let before = context.graph.generation
        let other = ManagedObjectContext(container)
        insertBooks([12], by: try other.fetch(FetchDescriptor<Writer>())[0], in: other)
        try other.save()
        // The merge at the next entry point moves the generation: the list is read again.
        #expect(!context.hasChanges)
        #expect(context.graph.generation != before)
        #expect(writer.books.map(\.id).sorted() == [10, 11, 12])
    }

    @Test func aRollbackForgetsTheListsThatChanged() throws {
        let context = ManagedObjectContext(try ticketContainer())
        let ticket = Ticket(context: context)
        ticket.number = 1
        let topic = Topic(context: context)
        topic.name = "storage"
        try context.save()
        ticket.topics = [topic]
        #expect(context.graph.listOwners[ObjectIdentifier(ticket)] === ticket)
        #expect(context.hasChanges)
        context.rollback()
        #expect(context.graph.listOwners.isEmpty && !context.hasChanges)
        #expect(ticket.topics.isEmpty && topic.tickets.isEmpty)
    }
}
