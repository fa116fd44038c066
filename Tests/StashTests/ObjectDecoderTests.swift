import Foundation
import Testing

@testable import Stash

/// The context's object decoder alone, called with a decoder positioned at one object: which
/// object a unique value names, what a partial payload does, and how a failure is named.
@Suite struct ObjectDecoderTests {
    /// Decodes one `Post` through the part, not through `Post.init(from:)`.
    private struct ThroughThePart: Decodable {
        let object: ManagedObject

        init(from decoder: any Decoder) throws {
            let context = decoder.userInfo[.managedObjectContext] as! ManagedObjectContext
            object = try context.decoding.decodeObject(of: Post.self, from: decoder)
        }
    }

    private func decode(_ text: String, into context: ManagedObjectContext) throws -> Post {
        try #require(try recipeDecoder(context).decode(ThroughThePart.self, from: json(text)).object as? Post)
    }

    @Test func aUniqueValueNamesTheContextsObjectThenTheStoredRowsThenANewOne() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        let stored = try decode(#"{"id": 2, "title": "Two again"}"#, into: context)
        // The stored row's object: only what the JSON gave is set, the rest waits for the row.
        #expect(stored.state == .persisted && stored.objectID.rowID == 2)
        let body = try #require(stored.entity.attribute(named: "body")).index
        #expect(stored.unloaded.contains(body))
        #expect(stored.body == "Body of post 2\nline 2" && stored.title == "Two again")
        let again = try decode(#"{"id": 2, "userId": 9}"#, into: context)
        #expect(again === stored && again.userId == 9 && again.title == "Two again")
        let new = try decode(#"{"id": 3, "userId": 1, "title": "Three", "body": ""}"#, into: context)
        #expect(new.state == .inserted && new !== stored)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
    }

    @Test func aMissingRequiredKeyFailsOnlyANewObjectAndSaysWhere() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        // The stored row has a title: a payload without one updates what it gives.
        #expect(try decode(#"{"id": 1, "body": "new body"}"#, into: context).title == "Title 1")
        let error = #expect(throws: StashError.self) {
            _ = try decode(#"{"id": 5, "userId": 1, "body": ""}"#, into: context)
        }
        #expect(error?.code == .decodingFailed && error?.entity == "Post" && error?.attribute == "title")
        #expect(error?.message.contains("\"title\"") == true)
    }
}
