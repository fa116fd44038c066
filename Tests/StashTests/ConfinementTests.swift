import Dispatch
import Foundation
import Stash
import Testing

/// An actor that imports with a context of its own, made in its methods.
actor Importer {
    let container: PersistentContainer
    var context: ManagedObjectContext?

    init(container: PersistentContainer) { self.container = container }

    func importPosts(_ data: Data) throws -> Int {
        let context = self.context ?? ManagedObjectContext(container)
        self.context = context
        let posts = try recipeDecoder(context).decode([Post].self, from: data)
        try context.save()
        return posts.count
    }

    func madeContext() -> ManagedObjectContext? { context }
}

/// Every context belongs to one executor; use from elsewhere is caught with a message.
@Suite(.bothStores) struct ConfinementTests {
    @Test func aBackgroundContextWorksInPerform() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let background = container.newBackgroundContext()
        #expect(background.name.hasPrefix("background context"))
        let ids = try await background.perform {
            let posts = try recipeDecoder(background).decode([Post].self, from: postsJSON(count: 20))
            try background.save()
            return posts.map(\.objectID)
        }
        #expect(ids.count == 20 && ids.allSatisfy { !$0.isTemporary })
        let count = try await container.performBackgroundTask { context in
            try context.fetchCount(FetchDescriptor<Post>())
        }
        #expect(count == 20)
    }

    @MainActor
    @Test func theMainContextBelongsToTheMainActor() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        try await container.performBackgroundTask { context in
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5))
            try context.save()
        }
        let main = container.mainContext
        #expect(main === container.mainContext && main.name == "mainContext")
        #expect(try main.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 2, 3, 4, 5])
        // The recipe's context made on the main actor belongs to it too.
        let recipe = ManagedObjectContext(container)
        #expect(recipe.name.contains("MainActor"))
        #expect(try recipe.fetchCount(FetchDescriptor<Post>()) == 5)
    }

    @Test func aContextMadeInAnActorMethodWorksThere() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let importer = Importer(container: container)
        #expect(try await importer.importPosts(postsJSON(count: 3)) == 3)
        #expect(try await importer.importPosts(postsJSON(count: 4)) == 4)
        let name = await importer.madeContext()?.name
        #expect(name?.contains("Importer") == true)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 4)
    }

    @Test func aBackgroundContextUsedOutsidePerformTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Post.self, inMemory: true)
            let background = container.newBackgroundContext()
            _ = try background.fetch(FetchDescriptor<Post>())
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("background context"))
        #expect(message.contains("was used off its executor"))
        #expect(message.contains("perform"))
    }

    @Test func anAttributeWriteOffTheExecutorTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Post.self, inMemory: true)
            let background = container.newBackgroundContext()
            let box = try await background.perform { () -> ObjectBox in
                let post = try recipeDecoder(background).decode(
                    Post.self, from: postsJSON(count: 1).dropFirst().dropLast())
                return ObjectBox(post)
            }
            box.object.title = "written from outside"
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was used off its executor"))
    }

    @Test func anActorsContextUsedFromAnotherTaskTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Post.self, inMemory: true)
            let importer = Importer(container: container)
            _ = try await importer.importPosts(postsJSON(count: 1))
            let context = await importer.madeContext()!
            _ = try context.fetchCount(FetchDescriptor<Post>())
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // The runtime's check, naming the actor.
        #expect(message.contains("Incorrect actor executor assumption; expected 'StashTests.Importer' executor"))
    }

    @Test func twoThreadsInsideAnUnconfinedContextTrap() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Blocking.self, inMemory: true)
            let context = ManagedObjectContext(container)
            let inside = DispatchSemaphore(value: 0)
            Blocking.entered = inside
            Thread.detachNewThread {
                // Decoding makes a blank object inside the context, which then waits.
                _ = try? recipeDecoder(context).decode(Blocking.self, from: json(#"{"id": 1}"#))
            }
            inside.wait()
            _ = try context.fetchCount(FetchDescriptor<Blocking>())
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was used by two threads at once"))
    }
}

/// Carries an object out of its context's executor, on purpose, to show the trap.
final class ObjectBox: @unchecked Sendable {
    let object: Post
    init(_ object: Post) { self.object = object }
}

/// A model whose blank instance, made inside its context while decoding, waits there once
/// the test asks it to.
final class Blocking: ManagedObject, Decodable {
    nonisolated(unsafe) static var entered: DispatchSemaphore?
    @Attribute(.unique) var id: Int

    required init() {
        super.init()
        if let entered = Blocking.entered {
            Blocking.entered = nil
            entered.signal()
            Thread.sleep(forTimeInterval: 30)
        }
    }
}
