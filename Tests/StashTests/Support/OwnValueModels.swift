import Foundation

@testable import Stash

/// A model whose attributes are values with their own `init(from:)` (a struct, enums by raw
/// text and number, collections of them), and plain values where JSONDecoder's wording for a
/// null or a wrong kind is its own (`Bool`, a dictionary).
final class OwnValuesRecord: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var point: Point?
    @Attribute var colour: Colour?
    @Attribute var level: Level?
    @Attribute var levels: [Level]?
    @Attribute var tags: Set<String>?
    @Attribute var uuid: UUID?
    @Attribute var scores: [String: Int]?
    @Attribute var flag: Bool = false
    @Attribute var small: Int16?
    @Attribute var wide: UInt32?

    /// An enum by its raw text.
    enum Colour: String, Codable { case red, green }

    /// An enum by its raw number.
    enum Level: Int, Codable {
        case low = 1
        case high = 300
    }

    /// A struct with the synthesized `init(from:)`.
    struct Point: Codable, CustomStringConvertible {
        let x: Int
        let y: Int?
        var description: String { "(\(x), \(y.map(String.init) ?? "nil"))" }
    }
}
