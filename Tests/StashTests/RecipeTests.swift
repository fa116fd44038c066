import Foundation
import Stash
import Testing

/// The classic recipe end to end: decode with the context in `userInfo`, save, reopen the
/// file in a fresh container, find every value.
@Suite(.bothStores) struct RecipeTests {
    @Test func defaultDecodingSavesEveryPostAndReopens() throws {
        let directory = try TemporaryDirectory()
        let payload = postsJSON(count: 50)
        do {
            let container = try testContainer(for: Post.self, storeURL: directory.file())
            let context = ManagedObjectContext(container)
            let posts = try recipeDecoder(context).decode([Post].self, from: payload)
            #expect(posts.count == 50)
            #expect(context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)
            #expect(posts.allSatisfy { $0.objectID.rowID != nil })
        }
        let reopened = try testContainer(for: Post.self, storeURL: directory.file())
        let posts = try ManagedObjectContext(reopened).fetch(FetchDescriptor<Post>())
        #expect(posts.count == 50)
        for (offset, post) in posts.enumerated() {
            let id = offset + 1
            #expect(post.id == id)
            #expect(post.userId == id % 7)
            #expect(post.title == "Title \(id)")
            #expect(post.body == "Body of post \(id)\nline 2")
            #expect(post.read == false)
            #expect(post.summary == nil)
        }
    }

    @Test func handWrittenInitDecodesTheSameWay() throws {
        let directory = try TemporaryDirectory()
        let payload = postsJSON(count: 20)
        do {
            let container = try testContainer(for: HandPost.self, storeURL: directory.file())
            let context = ManagedObjectContext(container)
            let posts = try recipeDecoder(context).decode([HandPost].self, from: payload)
            #expect(posts.map(\.id) == Array(1...20))
            try context.save()
        }
        let reopened = ManagedObjectContext(try testContainer(for: HandPost.self, storeURL: directory.file()))
        let posts = try reopened.fetch(FetchDescriptor<HandPost>())
        #expect(posts.map(\.id) == Array(1...20))
        #expect(posts.map(\.title) == (1...20).map { "Title \($0)" })
        #expect(posts[4].userId == 5 % 7)
    }

    @Test func handWrittenInitUpsertsOnSave() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 5))
        try context.save()
        // The same ids again, inside one payload twice: merged into the saved objects.
        let again = postsJSON(count: 5, titlePrefix: "Renamed")
        let first = try recipeDecoder(context).decode([HandPost].self, from: again)
        _ = try recipeDecoder(context).decode([HandPost].self, from: again)
        try context.save()
        let stored = try context.fetch(FetchDescriptor<HandPost>())
        #expect(stored.count == 5)
        #expect(stored.map(\.title) == (1...5).map { "Renamed \($0)" })
        #expect(try context.fetchCount(FetchDescriptor<HandPost>()) == 5)
        #expect(!first[0].isInserted)
    }

    @Test func decodingWithoutContextSaysSo() throws {
        let error = #expect(throws: StashError.self) {
            _ = try JSONDecoder().decode([Post].self, from: postsJSON(count: 1))
        }
        #expect(error?.code == .missingContext)
        #expect(error?.entity == "Post")
        #expect(error?.codingPath == "[0]")
        #expect(error.map { "\($0)" }?.contains("decoder.userInfo[.managedObjectContext]") == true)
    }

    @Test func decodedObjectsJoinTheContextAndEncodeBack() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let posts = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
        #expect(posts.allSatisfy { $0.managedObjectContext === context && $0.isInserted })
        let encoded = try JSONEncoder().encode(posts)
        let plain = try JSONSerialization.jsonObject(with: encoded) as? [[String: Any]]
        #expect(plain?.count == 3)
        #expect(plain?[1]["title"] as? String == "Title 2")
        #expect(plain?[1]["read"] as? Bool == false)
        #expect(plain?[1]["summary"] == nil)
    }

    @Test func keyDecodingStrategyApplies() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let decoder = recipeDecoder(context)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let post = try decoder.decode(
            Post.self, from: json(#"{"id": 1, "user_id": 9, "title": "t", "body": "b", "summary": "s"}"#))
        #expect(post.userId == 9)
        #expect(post.summary == "s")
    }
}
