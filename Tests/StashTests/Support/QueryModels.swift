import Foundation
import Stash

enum Stage: String, Codable, CaseIterable {
    case draft, review, live
}

/// Ordered by declaration, as Swift orders enums: not by raw value.
enum Rank: Int, Codable, Comparable {
    case gold = 3
    case silver = 1
    case bronze = 2

    static func < (left: Rank, right: Rank) -> Bool {
        let order: [Rank] = [.gold, .silver, .bronze]
        return order.firstIndex(of: left)! < order.firstIndex(of: right)!
    }
}

/// A model with an attribute of every kind a query compares, an indexed date and a
/// compound index.
final class Article: ManagedObject, Codable, IndexedModel {
    @Attribute(.unique) var id: Int
    @Attribute var feedID: Int = 0
    @Attribute var title: String = ""
    @Attribute var note: String?
    @Attribute var score: Int = 0
    @Attribute var small: Int8 = 0
    @Attribute var big: UInt64 = 0
    @Attribute var rating: Double = 0
    @Attribute var ratio: Float = 0
    @Attribute var read: Bool = false
    @Attribute var starred: Bool?
    @Attribute(.indexed) var publishedAt: Date = Date(timeIntervalSince1970: 0)
    @Attribute var editedAt: Date?
    @Attribute var price: Decimal = 0
    @Attribute var discount: Decimal?
    @Attribute var link: URL?
    @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
    @Attribute var stage: Stage = .draft
    @Attribute var priority: Priority?
    @Attribute var tags: [String] = []
    @Attribute var bytes: Data = Data()
    @Attribute var rank: Rank = .bronze

    static var indexes: [[PartialKeyPath<Article>]] { [[\.feedID, \.publishedAt]] }

    /// A computed property: not an attribute a query can name.
    var shouting: String { title.uppercased() }
}

/// The day `day` days after 2026-01-01 00:00:00 UTC.
func day(_ day: Double) -> Date {
    Date(timeIntervalSince1970: 1_767_225_600 + day * 86_400)
}
