import Foundation
import Testing

@testable import Stash

/// The context's fault loader alone: partly loaded objects (made from decoded rows) are filled
/// together, a decoded value the row already holds is no change, and a row deleted meanwhile
/// marks its object gone.
@Suite struct FaultLoaderTests {
    /// Posts 1…3 stored; a fresh context that decoded a partial payload for each.
    private func partlyLoaded(titles: [String]) throws -> (ManagedObjectContext, [Post]) {
        let (container, _) = try savedPosts(3)
        let context = ManagedObjectContext(container)
        let payload = titles.enumerated().map { #"{"id": \#($0 + 1), "title": "\#($1)"}"# }
        let posts = try recipeDecoder(context).decode([Post].self, from: json("[\(payload.joined(separator: ","))]"))
        return (context, posts)
    }

    @Test func oneReadLoadsEveryPartlyLoadedObjectOfTheEntity() throws {
        let (context, posts) = try partlyLoaded(titles: ["Title 1", "Changed", "Title 3"])
        let state = try context.identity.state(forType: Post.self)
        let body = try #require(state.entity.attribute(named: "body")).index
        #expect(posts.allSatisfy { $0.unloaded.contains(body) })
        #expect(Set(state.partial) == [1, 2, 3])
        _ = posts[0].body  // one read
        #expect(posts.allSatisfy { $0.unloaded.isEmpty })
        #expect(posts.map(\.body) == (1...3).map { "Body of post \($0)\nline 2" })
        #expect(state.partial.isEmpty)
    }

    @Test func aDecodedValueTheRowHoldsIsNoChange() throws {
        let (context, posts) = try partlyLoaded(titles: ["Title 1", "Changed", "Title 3"])
        let state = try context.identity.state(forType: Post.self)
        try context.faults.fulfill(posts, in: state)
        let title = try #require(state.entity.attribute(named: "title")).index
        // The same as stored: restated, compared again by the save; a different one: a change.
        #expect(!posts[0].changedAttributes.contains(title) && posts[0].restatedAttributes.contains(title))
        #expect(posts[1].changedAttributes.contains(title))
        #expect(context.hasChanges)
        try context.save()
        let reread = try ManagedObjectContext(context.container).fetch(
            FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(reread.map(\.title) == ["Title 1", "Changed", "Title 3"])
    }

    @Test func aRowDeletedMeanwhileMarksItsObjectGone() throws {
        let (context, posts) = try partlyLoaded(titles: ["Title 1", "Title 2", "Title 3"])
        context.automaticallyMergesChanges = false  // so only the loader can find out
        let other = ManagedObjectContext(context.container)
        other.delete(try other.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 2 }))[0])
        try other.save()
        #expect(!posts[1].isRowDeleted)
        let state = try context.identity.state(forType: Post.self)
        try context.faults.fulfill(posts, in: state)
        #expect(posts.map(\.isRowDeleted) == [false, true, false])
        #expect(posts[0].body == "Body of post 1\nline 2")
    }
}
