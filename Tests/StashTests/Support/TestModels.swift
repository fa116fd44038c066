import Foundation
import Stash

/// The recipe's model: every attribute decoded by the default `init(from:)`.
final class Post: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var userId: Int
    @Attribute var title: String
    @Attribute var body: String
    @Attribute var read: Bool = false
    @Attribute var summary: String?
}

/// The context a decoder carries, as the Core Data idiom finds it.
func contextOf(_ decoder: any Decoder) throws -> ManagedObjectContext {
    guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no context"))
    }
    return context
}

/// The Core Data idiom, written by hand.
final class HandPost: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var userId: Int
    @Attribute var title: String
    @Attribute var body: String

    enum CodingKeys: String, CodingKey {
        case id, userId, title, body
    }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try contextOf(decoder))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        userId = try container.decode(Int.self, forKey: .userId)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
    }
}

enum Priority: Int, Codable, Equatable {
    case low = 1
    case high = 2
}

enum Kind: String, Codable, Equatable {
    case story, job
}

struct Geo: Codable, Equatable {
    var lat: String
    var lng: String
}

/// One attribute of every supported type.
final class Sample: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var int8: Int8 = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var uint8: UInt8 = 0
    @Attribute var uint16: UInt16 = 0
    @Attribute var uint32: UInt32 = 0
    @Attribute var uint64: UInt64 = 0
    @Attribute var uint: UInt = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var flag: Bool = false
    @Attribute var text: String = ""
    @Attribute var date: Date = Date(timeIntervalSince1970: 0)
    @Attribute var url: URL = URL(string: "https://example.com")!
    @Attribute var uuid: UUID = UUID()
    @Attribute var data: Data = Data()
    @Attribute var decimal: Decimal = 0
    @Attribute var priority: Priority = .low
    @Attribute var kind: Kind?
    @Attribute var tags: [String] = []
    @Attribute var geo: Geo?
    @Attribute var optionalInt: Int?
    @Attribute var optionalDate: Date?
    @Attribute var optionalURL: URL?
    @Attribute var optionalDecimal: Decimal?
}

/// A model with no unique attribute: every decoded object is a new row.
final class Note: ManagedObject, Decodable {
    @Attribute var text: String
    @Attribute var pinned: Bool = false
}

/// A model with its own designated initializer: attributes are set after `super.init()`.
final class Tag: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Attribute var uses: Int = 0

    init(name: String, uses: Int) {
        super.init()
        self.name = name
        self.uses = uses
    }

    required init() { super.init() }
}
