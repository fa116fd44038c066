import Foundation
import Stash
import Testing

/// A JSON Feed item: its `id` may be a number or a string; other scalars come as text.
final class FeedItem: ManagedObject, Decodable {
    @Attribute(.unique, .lossless) var id: String
    @Attribute(.lossless) var rank: Int = 0
    @Attribute(.lossless) var score: Double?
    @Attribute(.lossless) var pinned: Bool = false
    @Attribute var title: String?
}

/// Tags that arrive as `Swift`, `swift` and ` SWIFT`: one row.
final class FeedTag: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.trimmed, .caseFolded]) var name: String
    @Attribute(normalized: .trimmed) var label: String?
    @Attribute var uses: Int = 0
}

/// Posts that name their tags by the tags' unique value.
final class TaggedPost: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship var tags: [FeedTag]
}

final class LosslessDate: ManagedObject, Decodable {
    @Attribute(.lossless) var when: Date?
}

final class NormalizedNumber: ManagedObject, Decodable {
    @Attribute(normalized: .caseFolded) var count: Int = 0
}

final class UnfoldedDefault: ManagedObject, Decodable {
    @Attribute(normalized: .caseFolded) var name: String = "Swift"
}

/// `.lossless` and `normalized:`, declared on the attribute, with no `init(from:)` written.
@Suite(.bothStores) struct DeclaredConversionTests {
    @Test(.sqliteOnly("reads the sqlite3 shell's spelling of REAL values (3.0) and its typeless columns"))
    func losslessTakesTheOtherScalarKindsWhenNothingIsLost() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: FeedItem.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let payload = json(
            #"[{"id": 42, "rank": "7", "score": "2.5", "pinned": 1}, {"id": "42", "title": "t", "pinned": "true"},"#
                + #" {"id": 12345678901234567890, "rank": -3, "pinned": "false"}, {"id": 1.5, "score": 3, "pinned": 0}]"#
        )
        _ = try context.decode([FeedItem].self, from: payload)
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT id, rank, score, pinned, title FROM FeedItem ORDER BY _pk")
                == "42|7|2.5|1|t\n12345678901234567890|-3||0|\n1.5|0|3.0|0|\n")
        // A re-import with the number form finds the row the text form made.
        let again = ManagedObjectContext(container)
        _ = try again.decode([FeedItem].self, from: json(#"[{"id": "1.5", "rank": 2}]"#))
        try again.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*), sum(rank) FROM FeedItem") == "3|6\n")
    }

    @Test(arguments: [
        (#"{"id": "a", "rank": "7.5"}"#, "rank", #""7.5""#),
        (#"{"id": "a", "rank": "seven"}"#, "rank", #""seven""#),
        (#"{"id": "a", "pinned": 2}"#, "pinned", "2"),
        (#"{"id": "a", "pinned": "yes"}"#, "pinned", #""yes""#),
        (#"{"id": true}"#, "id", "true"),
        (#"{"id": "a", "score": "1e400"}"#, "score", #""1e400""#),
    ])
    func losslessRefusesWhatWouldLoseSomething(payload: String, attribute: String, found: String) throws {
        let context = ManagedObjectContext(try testContainer(for: FeedItem.self, inMemory: true))
        let error = #expect(throws: StashError.self) {
            _ = try context.decode([FeedItem].self, from: json("[\(payload)]"))
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "FeedItem")
        #expect(error?.attribute == attribute)
        #expect(error?.codingPath == "[0].\(attribute)")
        #expect(error?.message.contains("found \(found)") == true)
        #expect(try context.fetchCount(FetchDescriptor<FeedItem>()) == 0)
    }

    @Test func normalizedValuesMakeOneRowWhenDecoded() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: FeedTag.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let tags = try context.decode(
            [FeedTag].self,
            from: json(
                #"[{"name": "Swift", "label": " Swift ", "uses": 1}, {"name": "swift", "uses": 2},"#
                    + #" {"name": " SWIFT\n", "uses": 3}, {"name": "Straße"}]"#))
        #expect(tags[0] === tags[2])
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT name, label, uses FROM FeedTag ORDER BY _pk")
                == "swift|Swift|3\nstrasse||0\n")
        // Another import in a fresh context finds the stored row by the normalized value.
        let fresh = ManagedObjectContext(container)
        _ = try fresh.decode([FeedTag].self, from: json(#"[{"name": "STRASSE", "uses": 5}]"#))
        try fresh.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT name, uses FROM FeedTag ORDER BY _pk") == "swift|3\nstrasse|5\n")
    }

    @Test func settersAndInsertsNormalizeSoTheSameRowIsUpserted() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: FeedTag.self, storeURL: directory.file())
        let first = ManagedObjectContext(container)
        _ = try first.decode([FeedTag].self, from: json(#"[{"name": "swift", "uses": 1}]"#))
        try first.save()

        let context = ManagedObjectContext(container)
        let tag = FeedTag(context: context)
        tag.name = "SWIFT "
        tag.uses = 9
        #expect(tag.name == "swift")
        let made = FeedTag()
        made.name = "Linux"
        made.label = "  Linux\t"
        context.insert(made)
        #expect(made.name == "linux")
        #expect(made.label == "Linux")
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT name, uses FROM FeedTag ORDER BY _pk") == "swift|9\nlinux|0\n")
    }

    @Test func aReferenceToANormalizedValueFindsTheOneObject() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: TaggedPost.self, FeedTag.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        _ = try context.decode([FeedTag].self, from: json(#"[{"name": "swift", "uses": 4}]"#))
        try context.save()
        let fresh = ManagedObjectContext(container)
        let posts = try fresh.decode(
            [TaggedPost].self, from: json(#"[{"id": 1, "tags": ["SWIFT"]}, {"id": 2, "tags": [" Swift", "Linux"]}]"#))
        #expect(posts.map { $0.tags.map(\.name) } == [["swift"], ["swift", "linux"]])
        try fresh.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT name, uses FROM FeedTag ORDER BY _pk") == "swift|4\nlinux|0\n")
    }

    @Test func aQueryComparesWithTheLiteralNormalizedTheSameWay() throws {
        let container = try testContainer(for: FeedTag.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try context.decode([FeedTag].self, from: json(#"[{"name": "Swift"}, {"name": "Linux"}]"#))
        try context.save()
        let raw = "SWIFT"
        #expect(try context.fetch(FetchDescriptor<FeedTag>(predicate: #Predicate { $0.name == raw })).isEmpty)
        let name = AttributeNormalization([.trimmed, .caseFolded]).normalize(raw)
        #expect(name == "swift")
        let found = try ManagedObjectContext(container).fetch(
            FetchDescriptor<FeedTag>(predicate: #Predicate { $0.name == name }))
        #expect(found.map(\.name) == ["swift"])
    }

    @Test func declarationsThatCannotHoldAreRefusedWhenTheContainerIsMade() throws {
        let date = #expect(throws: StashError.self) {
            _ = try testContainer(for: LosslessDate.self, inMemory: true)
        }
        #expect(date?.code == .invalidModel)
        #expect(date?.entity == "LosslessDate")
        #expect(date?.attribute == "when")
        #expect(date?.message.contains(".lossless") == true)
        let number = #expect(throws: StashError.self) {
            _ = try testContainer(for: NormalizedNumber.self, inMemory: true)
        }
        #expect(number?.code == .invalidModel)
        #expect(number?.attribute == "count")
        let unfolded = #expect(throws: StashError.self) {
            _ = try testContainer(for: UnfoldedDefault.self, inMemory: true)
        }
        #expect(unfolded?.code == .invalidModel)
        #expect(unfolded?.attribute == "name")
        #expect(unfolded?.message.contains(#""swift""#) == true)
    }
}
