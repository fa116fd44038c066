import Foundation
import Testing

@testable import Stash

/// The context's identity map, alone and inside a context: which state an entity has, the
/// error for a class the container does not store, temporary IDs, and the object an ID names.
@Suite struct IdentityMapTests {
    @Test func findsEachEntitysStateByClassAndName() throws {
        let entities = try [Post.self, Note.self].map { try EntityRegistry.shared.entity(for: $0) }
        let map = identityMap(entities)
        #expect(map.states.map(\.entity.name) == ["Post", "Note"])
        let note = try map.state(forType: Note.self)
        #expect(note === map.states[1])
        #expect(map.state(for: entities[0]) === map.states[0])
        #expect(map.state(named: "Note") === note)
        #expect(map.state(named: "note") == nil)
        #expect(map.position(of: note) == 1)
    }

    @Test func aClassTheContainerDoesNotStoreIsAnErrorThatNamesTheModels() throws {
        let map = identityMap([try EntityRegistry.shared.entity(for: Note.self)])
        let error = #expect(throws: StashError.self) { try map.state(forType: Post.self) }
        #expect(error?.code == .unknownEntity)
        #expect(error?.entity == "Post")
        #expect(error?.message.contains("(Note)") == true)
    }

    @Test func temporaryIDsAreNeverReused() throws {
        let map = identityMap([])
        let taken = (0..<5).map { _ in map.takeTemporaryID() }
        #expect(taken == [1, 2, 3, 4, 5])
        #expect(map.nextTemporaryID == 6)
    }

    @Test func anIDNamesTheLiveObjectItWasGiven() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let first = post(1)
        let second = post(2)
        context.insert(first)
        context.insert(second)
        let temporary = first.objectID
        #expect(context.identity.registeredObject(for: temporary) === first)
        #expect(context.identity.registeredObject(for: second.objectID) === second)
        // Deleted before its first save, a new object leaves: its temporary ID names nothing.
        context.delete(second)
        #expect(context.identity.registeredObject(for: second.objectID) == nil)
        #expect(context.identity.pendingChangeCount == 2)  // the queue keeps it until the save
        try context.save()
        #expect(context.identity.registeredObject(for: first.objectID) === first)
        #expect(context.identity.registeredObject(for: temporary) == nil)
        #expect(context.identity.registeredObjectCount == 1)
        #expect(context.identity.pendingChangeCount == 0)
        // A row another context deleted names no object here once merged.
        let other = ManagedObjectContext(context.container)
        other.delete(try other.existingObject(with: first.objectID))
        try other.save()
        #expect(context.registeredObject(for: first.objectID) == nil)
    }

    /// What a decoded new object's unique values do to the index (`setEntryIfFree`): a key
    /// another object holds stays its; a free one names the object, and the save then names
    /// the object's row, so that the index no longer holds the object.
    @Test func aFreeUniqueKeyNamesTheObjectAndATakenOneKeepsItsHolder() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = post(1)
        let second = post(2)
        context.insert(first)
        context.insert(second)
        let state = try context.identity.state(forType: Post.self)
        state.setEntryIfFree(second, 0, .integer(1))
        #expect(state.lookup(0, .integer(1), in: context) === first)
        state.uniqueIndexes[0][.integer(2)] = nil
        state.setEntryIfFree(second, 0, .integer(2))
        #expect(state.lookup(0, .integer(2), in: context) === second)
        try context.save()
        guard case .row(let secondRow)? = state.uniqueIndexes[0][.integer(2)] else {
            Issue.record("the saved key 2 should name its row")
            return
        }
        #expect(secondRow == second.rowID)
        // Decoded as new in a context of its own, an object enters the index only here.
        let decoding = ManagedObjectContext(container)
        let decoded = try decoding.decode(
            Post.self, from: Data(#"{"id": 3, "userId": 1, "title": "T", "body": "B"}"#.utf8))
        try decoding.save()
        let named = try decoding.identity.state(forType: Post.self).uniqueIndexes[0][.integer(3)]
        guard case .row(let rowID)? = named else {
            Issue.record("the saved object's key names \(String(describing: named)), not its row")
            return
        }
        #expect(rowID == decoded.rowID)
    }

    private func post(_ id: Int) -> Post {
        let post = Post()
        post.id = id
        post.userId = 1
        post.title = "Post \(id)"
        post.body = ""
        return post
    }

    private func identityMap(_ entities: [EntityDescription]) -> IdentityMap {
        IdentityMap(entities, positions: EntityDescription.positionsByType(entities), departures: DepartureSignal())
    }
}
