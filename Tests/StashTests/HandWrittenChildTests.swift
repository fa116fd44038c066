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

@Suite(.bothStores) struct HandWrittenChildTests {
    let entries = json(#"[{"guid": "1", "title": "one"}, {"guid": "2", "title": "two"}]"#)

    /// The container listed WindowFeed and was refused, saying WindowFeed was not one of its
    /// models.
    @Test func aRelationshipWithoutAnInverseToAListedModelIsAccepted() throws {
        let container = try testContainer(
            for: WindowFeed.self, WindowEntry.self, HandEntry.self, inMemory: true)
        #expect(container.entityNames == ["WindowFeed", "WindowEntry", "HandEntry"])
    }

    /// The hand-written idiom decoded as a feed's children takes the feed at insert, before
    /// its composite key is matched: a re-import into a fresh context finds every row (no
    /// second row, no failed save on the unique index), and the flag a user set stays.
    @Test func theIdiomsChildrenTakeTheirParentBeforeMatching() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(
            for: WindowFeed.self, WindowEntry.self, HandEntry.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let feed = WindowFeed(context: context)
        feed.url = "f"
        let first = try context.decode([HandEntry].self, from: entries, parent: feed, via: \.feed)
        #expect(first.allSatisfy { $0.feed === feed })
        first[1].read = true
        try context.save()

        let fresh = ManagedObjectContext(container)
        let stored = try fresh.fetch(FetchDescriptor<WindowFeed>())[0]
        let renamed = json(#"[{"guid": "1", "title": "one again"}, {"guid": "2", "title": "two"}]"#)
        let again = try fresh.decode([HandEntry].self, from: renamed, parent: stored, via: \.feed)
        #expect(again.allSatisfy { $0.feed === stored })
        // The idiom's objects are matched by their composite key at the save.
        try fresh.save()
        #expect(again.map(\.objectID) == first.map(\.objectID))
        #expect(
            try sqliteShell(directory.file(), "SELECT guid, title, read FROM HandEntry ORDER BY guid")
                == "1|one again|0\n2|two|1\n")

        // Outside a parent's decode, nothing is set for it.
        let loose = HandEntry(context: fresh)
        loose.guid = "3"
        #expect(loose.feed == nil)
    }
}
