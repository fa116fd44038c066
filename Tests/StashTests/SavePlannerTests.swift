import Foundation
import Testing

@testable import Stash

/// The context's save planner alone: the change set it makes of the pending changes, in the
/// order a save writes it, without touching an object.
@Suite struct SavePlannerTests {
    @Test func aPlanListsRowsInRowOrderWithTheColumnsThatChanged() throws {
        let (_, context) = try savedPosts(4)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id, order: .reverse)]))
        posts[0].title = "four"  // row 4
        posts[2].body = "two"  // row 2
        context.delete(posts[3])  // row 1
        context.delete(posts[1])  // row 3
        let added = Post(context: context)
        added.id = 9
        added.userId = 1
        added.title = "nine"
        added.body = ""
        let state = try context.identity.state(forType: Post.self)
        let changedBefore = posts.map(\.changedAttributes)
        let updatedBefore = Set(state.updated.keys)
        let (changes, plan) = try context.planner.storeChanges()
        let entity = try #require(changes.entities.first)
        let post = state.entity
        let title = try #require(post.attribute(named: "title")).index
        let body = try #require(post.attribute(named: "body")).index
        #expect(entity.deletes == [1, 3])
        #expect(entity.updates.rowIDs == [2, 4])
        #expect(entity.updates.columnSets.map { $0.contains(body) } == [true, false])
        #expect(entity.updates.columnSets.map { $0.contains(title) } == [false, true])
        #expect(try entity.updates.value(1, title) == .text("four"))
        #expect(entity.inserts.count == 1)
        #expect(try entity.inserts.value(0, title) == .text("nine"))
        #expect(plan.inserted == [[added]])
        // Planning changes nothing: the same save is still to be made.
        #expect(context.hasChanges && added.state == .inserted && posts[1].state == .deleted)
        #expect(posts.map(\.changedAttributes) == changedBefore && Set(state.updated.keys) == updatedBefore)
        #expect(added.objectID.rowID == nil && state.deleted.count == 2)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
    }

    @Test func entitiesAreInsertedAfterTheOnesTheyPointAt() throws {
        let container = try testContainer(for: Book.self, Review.self, Writer.self, Publisher.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let names = context.identity.states.map(\.entity.name)
        let order = context.planner.insertOrder(SavePlan()).map { names[$0] }
        let position = { (name: String) in order.firstIndex(of: name)! }
        #expect(order.count == 4)
        #expect(position("Writer") < position("Book") && position("Publisher") < position("Book"))
        #expect(position("Book") < position("Review"))
    }

    @Test func aNewObjectWithoutARequiredValueIsNamed() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let post = Post(context: context)
        post.id = 1
        post.userId = 1
        post.body = ""
        let state = try context.identity.state(forType: Post.self)
        let error = #expect(throws: StashError.self) { try context.planner.checkRequiredValues(in: state) }
        #expect(error?.code == .missingValue && error?.entity == "Post" && error?.attribute == "title")
        post.title = "given"
        try context.planner.checkRequiredValues(in: state)
    }
}
