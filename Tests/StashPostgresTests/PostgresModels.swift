import Foundation
import Stash

/// Every kind of attribute a store keeps.
final class Reading: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String = ""
    @Attribute var score: Double = 0
    @Attribute var flag: Bool = false
    @Attribute var taken: Date = Date(timeIntervalSince1970: 0)
    @Attribute var price: Decimal = 0
    @Attribute var link: URL?
    @Attribute var token: UUID?
    @Attribute var data: Data?
    @Attribute var tags: [String] = []
    @Attribute var note: String?
    @Attribute var small: Int32 = 0
    @Attribute var big: UInt64 = 0
}

final class Writer: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.writer) var books: [Book]
}

final class Book: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Relationship var writer: Writer?
}

/// Unique by shelf and code together: two shelves may share a code.
final class Slot: ManagedObject, Decodable, CompositeUniqueModel {
    @Attribute var shelf: String
    @Attribute var code: Int
    @Attribute var label: String = ""

    static var uniqueConstraints: [[PartialKeyPath<Slot>]] { [[\.shelf, \.code]] }
}

func decoder(_ context: ManagedObjectContext) -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.userInfo[.managedObjectContext] = context
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

func json(_ text: String) -> Data { Data(text.utf8) }

/// Many-to-many, through a join table that keeps the owning side's order.
final class Ticket: ManagedObject, Decodable {
    @Attribute(.unique) var number: Int
    @Relationship var topics: [Topic]
}

final class Topic: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \Ticket.topics) var tickets: [Ticket]
}
