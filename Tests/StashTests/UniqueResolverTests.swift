import Foundation
import Testing

@testable import Stash

/// The context's unique resolver alone: the object it makes for a stored row's value, the
/// stand-in it makes of a new object whose value is taken, and whose values count.
@Suite struct UniqueResolverTests {
    @Test func aStoredValueGivesThatRowsObjectPartlyLoaded() throws {
        let (container, _) = try savedPosts(3)
        let context = ManagedObjectContext(container)
        let state = try context.identity.state(forType: Post.self)
        let title = try #require(state.entity.attribute(named: "title")).index
        let id = try #require(state.entity.attribute(named: "id")).index
        let object = try #require(try context.resolver.storedObject(for: .integer(2), unique: 0, in: state))
        // Nothing read but the row id: every attribute but the unique one waits to be loaded.
        #expect(object.state == .persisted && object.objectID.rowID == 2)
        #expect(object.unloaded.contains(title) && !object.unloaded.contains(id))
        // From now on the context's unique index answers for the value, and the row's object,
        // its unique value loaded, is no longer offered as a stored row's.
        #expect(state.lookup(0, .integer(2), in: context) === object)
        #expect(try context.resolver.storedObject(for: .integer(2), unique: 0, in: state) == nil)
        #expect(try context.resolver.storedObject(for: .integer(99), unique: 0, in: state) == nil)
        #expect((object as? Post)?.title == "Title 2")
        #expect(!context.hasChanges)
    }

    @Test func whoseGivenValuesCountFollowsTheMatchThenThePolicy() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let post = Post()
        let cases: [(UniqueMatch?, MergePolicy, Bool)] = [
            (.upsert, .storedWins, true), (.adopt, .incomingWins, false),
            (nil, .incomingWins, true), (nil, .storedWins, false), (nil, .fail, false),
        ]
        for (match, policy, upserts) in cases {
            post.uniqueMatch = match
            context.mergePolicy = policy
            #expect(context.resolver.upsertsGivenValues(of: post) == upserts, "\(String(describing: match)) \(policy)")
        }
    }

    @Test func aStandInReadsAndWritesItsHoldersValues() throws {
        let (_, context) = try savedPosts(1)
        let holder = try context.fetch(FetchDescriptor<Post>())[0]
        let newcomer = Post()
        newcomer.id = 1
        newcomer.userId = 5
        newcomer.title = "given"
        newcomer.body = "given body"
        context.insert(newcomer)  // `.incomingWins`: the given values go to the holder
        #expect(newcomer.state == .standIn && newcomer.objectID == holder.objectID)
        #expect(holder.title == "given" && holder.userId == 5)
        newcomer.title = "through the stand-in"
        #expect(holder.title == "through the stand-in")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 1)
        let reread = ManagedObjectContext(context.container)
        #expect(try reread.fetch(FetchDescriptor<Post>())[0].title == "through the stand-in")
    }

    @Test func aConflictNamesTheValueTheEntityAndTheAttribute() throws {
        let entity = try EntityRegistry.shared.entity(for: Post.self)
        let id = try #require(entity.attribute(named: "id"))
        let error = UniqueResolver.conflict(entity, id, .integer(7))
        #expect(error.code == .uniqueConflict && error.entity == "Post" && error.attribute == "id")
        #expect(error.message.contains("7") && error.message.contains(".fail"))
    }
}
