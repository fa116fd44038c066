import Foundation

@testable import Stash

/// Values of a value's own: an enum by its raw text, one by its raw number, and a struct
/// with the synthesized `init(from:)`.
enum Colour: String, Codable { case red, green }
enum Level: Int, Codable {
    case low = 1
    case high = 300
}
struct Point: Codable, CustomStringConvertible {
    let x: Int
    let y: Int?
    var description: String { "(\(x), \(y.map(String.init) ?? "nil"))" }
}

/// A model whose attributes are values with their own `init(from:)`, and plain values where
/// JSONDecoder's wording for a null or a wrong kind is its own (`Bool`, a dictionary).
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

    static let attributeNames = [
        "point", "colour", "level", "levels", "tags", "uuid", "scores", "flag", "small", "wide",
    ]
}
