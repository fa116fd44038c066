import Foundation
import Testing

@testable import Stash

/// An object keeps its context: Swift code drops the context's variable and goes on using
/// what it fetched.
@Suite(.bothStores) struct ContextLifetimeTests {
    /// The issue's case: relationships of objects whose context was a temporary read nothing.
    @Test func objectsOfATemporaryContextStillReadTheirRelationships() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let books = try ManagedObjectContext(container).fetch(
            FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(books.map(\.id) == [10, 11, 20])
        #expect(books[0].writer?.name == "Ursula")
        #expect(books[0].reviews.map(\.stars) == [5, 4])
        let writer = try #require(
            try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 1 }))
                .first)
        #expect(writer.books.map(\.id) == [10, 11])
    }

    /// A change to such an object is tracked by its context, which the object keeps, and
    /// saved when that context is.
    @Test func aChangeAfterTheContextVariableIsGoneIsSaved() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        let book = try #require(try ManagedObjectContext(container).fetch(FetchDescriptor<Book>()).first)
        book.title = "Renamed"
        let context = try #require(book.managedObjectContext)
        #expect(context.hasChanges)
        try context.save()
        let titles = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>()).map(\.title)
        #expect(titles.contains("Renamed"))
    }

    /// The context lives as long as its objects, and no longer: letting go of both frees it.
    @Test func aContextIsFreedWithItsLastObject() throws {
        let container = try graphContainer()
        try seedLibrary(container)
        weak var released: ManagedObjectContext?
        var books: [Book]? = []
        do {
            let context = ManagedObjectContext(container)
            released = context
            books = try context.fetch(FetchDescriptor<Book>())
            _ = books?.first?.writer
        }
        #expect(released != nil)
        #expect(books?.first?.writer?.name != nil)
        books = nil
        #expect(released == nil)
        do {
            let context = ManagedObjectContext(container)
            released = context
            _ = try context.fetch(FetchDescriptor<Book>())
        }
        #expect(released == nil)
    }

    /// The container lists its contexts without keeping them: a context takes its own entry
    /// out as it is freed, so a hundred contexts made and dropped leave the list as it was,
    /// and the saves it hands on reach only the contexts still alive.
    @Test func aFreedContextLeavesTheContainersList() throws {
        let container = try graphContainer()
        let listening = ManagedObjectContext(container)
        let before = container.contextList.withLock { $0.count }
        for _ in 0..<100 {
            _ = try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>())
        }
        #expect(container.contextList.withLock { $0.count } == before)
        let writing = ManagedObjectContext(container)
        _ = insertWriter(7, "Nnedi", in: writing)
        try writing.save()
        #expect(container.contextList.withLock { $0.count } == before + 1)
        // Handed on: the save waits in the listening context's inbox until its next call.
        let handedOn = listening.merger.hasMail.load(ordering: .acquiring)
        #expect(handedOn)
        #expect(try listening.fetch(FetchDescriptor<Writer>()).map(\.name) == ["Nnedi"])
    }

    /// Contexts made and freed on other threads while another saves: the saves are handed on
    /// under the list's lock, a context whose deinitialization has begun is passed over, and
    /// each freed context leaves the list (the thread sanitizer runs this in CI).
    @Test func contextsFreedOnOtherThreadsWhileSavesAreHandedOn() async throws {
        let container = try graphContainer()
        let listening = ManagedObjectContext(container)
        let before = container.contextList.withLock { $0.count }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let writing = ManagedObjectContext(container)
                for id in 1...40 {
                    _ = insertWriter(id, "Writer \(id)", in: writing)
                    try writing.save()
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<150 {
                        _ = try ManagedObjectContext(container).fetch(FetchDescriptor<Writer>())
                    }
                }
            }
            try await group.waitForAll()
        }
        let handedOn = listening.merger.hasMail.load(ordering: .acquiring)
        #expect(handedOn)
        #expect(try listening.fetch(FetchDescriptor<Writer>()).count == 40)
        #expect(container.contextList.withLock { $0.count } == before)
    }

    /// A background context whose queue is busy holds one queued merge however many saves
    /// reach it (the job holds the context until it runs): dropped meanwhile, it is freed once
    /// that job has run, and the merge takes in every save kept by then.
    @Test func aBusyBackgroundContextQueuesOneMergeForManySaves() throws {
        let container = try graphContainer()
        var background: ManagedObjectContext? = container.newBackgroundContext()
        guard case .background(let actor) = background!.confinement else {
            Issue.record("a background context is not confined to its own queue")
            return
        }
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        actor.executor.async {
            started.signal()
            gate.wait()
        }
        started.wait()
        let writing = ManagedObjectContext(container)
        for id in 1...20 {
            _ = insertWriter(id, "Writer \(id)", in: writing)
            try writing.save()
        }
        let queued = background!.merger.mergeQueued.load(ordering: .acquiring)
        #expect(queued)
        weak let dropped = background
        background = nil
        #expect(dropped != nil)
        gate.signal()
        let deadline = Date().addingTimeInterval(10)
        while dropped != nil, Date() < deadline { usleep(1_000) }
        #expect(dropped == nil)
    }

    /// The unique index holds a new object only while the insert queue does: once saved, or
    /// rolled back, decoded and inserted objects and their context are freed with the last
    /// reference to them, and a saved one's value still names its row.
    @Test func newObjectsAreFreedAfterTheirSaveOrRollback() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        weak var released: ManagedObjectContext?
        weak var saved: Post?
        weak var rolledBack: Post?
        do {
            let context = ManagedObjectContext(container)
            released = context
            let posts = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
            saved = posts[0]
            try context.save()
            let made = Post(context: context)
            made.id = 99
            made.userId = 1
            made.title = "never saved"
            made.body = ""
            rolledBack = made
            context.rollback()
        }
        #expect(saved == nil)
        #expect(rolledBack == nil)
        #expect(released == nil)
        let context = ManagedObjectContext(container)
        let decoded = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
        try context.save()
        let again = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 1, "title": "again"}"#))
        #expect(again === decoded[0])
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
        let unsaved = FetchDescriptor<Post>(predicate: #Predicate { $0.id == 99 })
        #expect(try ManagedObjectContext(container).fetchCount(unsaved) == 0)
    }

    /// Rows whose objects nobody holds are found again by decoding, and an unchanged payload
    /// writes nothing.
    @Test func anUnchangedPayloadForLetGoObjectsWritesNothing() throws {
        let (container, context) = try savedPosts(50)
        let watcher = container.store
        let token = try watcher.changeToken()
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 50))
        #expect(try context.saveChanges().isEmpty)
        #expect(try watcher.changeToken() == token)
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 50)
    }

    /// Misuse traps with its message in every build: `fatalError`, which release builds
    /// print, where `precondition` printed only "precondition failure".
    @Test func insertingAnObjectOfAnotherContextTrapsWithItsMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Post.self, inMemory: true)
            let first = ManagedObjectContext(container)
            let post = Post(context: first)
            ManagedObjectContext(container).insert(post)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("already belongs to another context; use existingObject(with:)"))
    }
}

/// A context nobody calls into does not keep every other save's note.
@Suite(.bothStores) struct IdleContextTests {
    @Test func anIdleContextFoldsTheNotesItWaitsFor() throws {
        let (container, writer) = try savedPosts(3)
        let idle = ManagedObjectContext(container)
        let held = try idle.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        let posts = try writer.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        for round in 1...100 {
            posts[round % 3].title = "round \(round)"
            if round == 50 { writer.delete(posts[2]) }
            if round == 60 { _ = try recipeDecoder(writer).decode([Post].self, from: postsJSON(count: 1, firstID: 9)) }
            try writer.save()
        }
        #expect(idle.merger.inbox.withLock { $0.count } <= Merger.foldThreshold + 1)
        // The next call merges the folded notes as the saves would have, one by one.
        #expect(try idle.fetch(FetchDescriptor<Post>()).map(\.id).sorted() == [1, 2, 9])
        #expect(held[0].title == "round 99")
        #expect(held[1].title == "round 100")
        #expect(held[2].isRowDeleted)
    }
}
