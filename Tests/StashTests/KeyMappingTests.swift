import Foundation
import Stash
import Testing

/// A model whose JSON keys are not its Swift names.
final class Story: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute(key: "headline") var title: String
    @Attribute(key: "author_id") var authorID: Int
    @Attribute(key: "is_draft") var draft: Bool = false
    @Attribute var publishedAt: Date?
}

/// Declares `CodingKeys` but leaves decoding to Stash: refused, not ignored.
final class KeyedStory: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    enum CodingKeys: String, CodingKey {
        case id
        case title = "headline"
    }
}

@Suite(.bothStores) struct KeyMappingTests {
    let payload = json(
        #"[{"id": 1, "headline": "Hello", "author_id": 7, "published_at": "2026-11-05T14:30:00Z"},"#
            + #" {"id": 2, "headline": "Draft", "author_id": 8, "is_draft": true}]"#)

    @Test func declaredKeysDecodeWithoutAKeyStrategy() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try testContainer(for: Story.self, storeURL: directory.file()))
        let decoder = recipeDecoder(context)
        decoder.dateDecodingStrategy = .iso8601
        let stories = try decoder.decode([Story].self, from: payload)
        #expect(stories.map(\.title) == ["Hello", "Draft"])
        #expect(stories.map(\.authorID) == [7, 8])
        #expect(stories.map(\.draft) == [false, true])
        // No strategy: "published_at" is not "publishedAt".
        #expect(stories[0].publishedAt == nil)
        try context.save()
        // Columns are named as in Swift.
        #expect(
            try sqliteShell(directory.file(), "SELECT title, authorID, draft FROM Story") == "Hello|7|0\nDraft|8|1\n")
    }

    @Test func declaredKeysDecodeWithConvertFromSnakeCase() throws {
        let context = ManagedObjectContext(try testContainer(for: Story.self, inMemory: true))
        let decoder = recipeDecoder(context)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let stories = try decoder.decode([Story].self, from: payload)
        #expect(stories.map(\.title) == ["Hello", "Draft"])
        #expect(stories.map(\.authorID) == [7, 8])
        #expect(stories.map(\.draft) == [false, true])
        #expect(stories[0].publishedAt == Date(timeIntervalSince1970: 1_793_889_000))
    }

    @Test func aMissingMappedKeyIsNamedAsInTheJSON() throws {
        let context = ManagedObjectContext(try testContainer(for: Story.self, inMemory: true))
        let error = #expect(throws: StashError.self) {
            _ = try recipeDecoder(context).decode([Story].self, from: json(#"[{"id": 1, "headline": "x"}]"#))
        }
        #expect(error?.attribute == "authorID")
        #expect(error?.message.contains(#""author_id""#) == true)
        #expect(error?.codingPath == "[0].author_id")
    }

    @Test func encodingUsesTheDeclaredKeys() throws {
        let context = ManagedObjectContext(try testContainer(for: Story.self, inMemory: true))
        let story = try recipeDecoder(context).decode(
            Story.self, from: json(#"{"id": 3, "headline": "Out", "author_id": 2}"#))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(story), as: UTF8.self)
                == #"{"author_id":2,"headline":"Out","id":3,"is_draft":false}"#)
        encoder.keyEncodingStrategy = .convertToSnakeCase
        #expect(
            String(decoding: try encoder.encode(story), as: UTF8.self)
                == #"{"author_id":2,"headline":"Out","id":3,"is_draft":false}"#)
    }

    @Test func codingKeysWithoutInitFromAreRefusedAtContainerCreation() throws {
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: KeyedStory.self, inMemory: true)
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.entity == "KeyedStory")
        #expect(error?.message.contains("@Attribute(key:)") == true)
    }

    @Test func codingKeysWithAHandWrittenInitFromAreFine() throws {
        let context = ManagedObjectContext(try testContainer(for: HandPost.self, inMemory: true))
        let posts = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2))
        #expect(posts.map(\.id) == [1, 2])
        #expect(context.hasChanges)
    }
}
