import Foundation
import Stash

/// A writer and the books that name them: a one-to-many relationship, declared on the
/// to-many side.
final class Writer: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
    @Relationship(inverse: \Book.writer) var books: [Book]
}

final class Book: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String = ""
    @Relationship var writer: Writer?
    @Relationship var publisher: Publisher?
    @Relationship(deleteRule: .cascade, inverse: \Review.book) var reviews: [Review]
}

/// Deleted with its book.
final class Review: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var stars: Int = 0
    @Relationship var book: Book?
}

/// Cannot be deleted while it has books.
final class Publisher: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship(deleteRule: .deny, inverse: \Book.publisher) var books: [Book]
}

/// A relationship of an entity to itself, declared on the to-one side.
final class Employee: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Relationship(inverse: \Employee.reports) var manager: Employee?
    @Relationship var reports: [Employee]
}

/// A container of every graph model, in an order where sources come before their targets.
func graphContainer(at url: URL? = nil) throws -> PersistentContainer {
    if let url {
        return try testContainer(
            for: Review.self, Book.self, Writer.self, Publisher.self, Employee.self, storeURL: url)
    }
    return try testContainer(
        for: Review.self, Book.self, Writer.self, Publisher.self, Employee.self, inMemory: true)
}

/// Many-to-many: a ticket's topics (the owning side: `Ticket_topics`), the topics' tickets
/// (the inverse), and a ticket's assignees (no inverse).
final class Ticket: ManagedObject, Codable {
    @Attribute(.unique) var number: Int
    @Attribute var title: String = ""
    @Relationship var topics: [Topic]
    @Relationship var assignees: [Member]
}

final class Topic: ManagedObject, Codable {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \Ticket.topics) var tickets: [Ticket]
}

/// Cannot be deleted while it has tickets... through no inverse: nullified.
final class Member: ManagedObject, Codable {
    @Attribute(.unique) var login: String
}

func ticketContainer(at url: URL? = nil) throws -> PersistentContainer {
    if let url { return try testContainer(for: Ticket.self, Topic.self, Member.self, storeURL: url) }
    return try testContainer(for: Ticket.self, Topic.self, Member.self, inMemory: true)
}

/// A new writer, inserted into `context`.
@discardableResult
func insertWriter(_ id: Int, _ name: String, in context: ManagedObjectContext) -> Writer {
    let writer = Writer(context: context)
    writer.id = id
    writer.name = name
    return writer
}

/// New books with these ids, each written by `writer`.
func insertBooks(_ ids: [Int], by writer: Writer, in context: ManagedObjectContext) {
    for id in ids {
        let book = Book(context: context)
        book.id = id
        book.writer = writer
    }
}
