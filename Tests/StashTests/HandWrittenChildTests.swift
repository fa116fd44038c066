import Foundation
import Stash
import Testing

/// The Core Data idiom for a child unique per parent, with no inverse declared: its
/// `init(from:)` never names the feed, which only the decode's parent can give it.
final class HandEntry: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var feed: WindowFeed?
    @Attribute var guid: String
    @Attribute var title: String = ""
    @Attribute var read: Bool = false

    static var uniqueConstraints: [[PartialKeyPath<HandEntry>]] { [[\.feed, \.guid]] }

    enum CodingKeys: String, CodingKey { case guid, title }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try contextOf(decoder))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guid = try container.decode(String.self, forKey: .guid)
        title = try container.decode(String.self, forKey: .title)
    }
}

@Suite struct HandWrittenChildTests {
    /// The container listed WindowFeed and was refused, saying WindowFeed was not one of its
    /// models.
    @Test func aRelationshipWithoutAnInverseToAListedModelIsAccepted() throws {
        let container = try PersistentContainer(
            for: WindowFeed.self, WindowEntry.self, HandEntry.self, inMemory: true)
        #expect(container.entityNames == ["WindowFeed", "WindowEntry", "HandEntry"])
    }
}
