import Foundation
import Synchronization
import Testing

@testable import Stash

/// The context's merger alone: what it keeps of other contexts' saves until the context takes
/// them in, and what a refresh from the store does to an object's own changes.
@Suite struct MergerTests {
    @Test func notesPastTheThresholdFoldIntoOneAndAreTakenOnce() throws {
        let (container, _) = try savedPosts(3)
        let idle = ManagedObjectContext(container)
        let post = try idle.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))[0]
        let writer = ManagedObjectContext(container)
        let theirs = try writer.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))[0]
        for round in 1...(Merger.foldThreshold + 8) {
            theirs.title = "round \(round)"
            try writer.save()
        }
        // Nobody called into `idle`: its notes wait, folded once past the threshold.
        let waiting = idle.merger.inbox.withLock { $0.count }
        #expect(waiting >= 1 && waiting <= Merger.foldThreshold)
        #expect(hasMail(idle))
        // The next entry point (here `hasChanges`) takes them all in, once.
        #expect(!idle.hasChanges)
        #expect(post.title == "round \(Merger.foldThreshold + 8)")
        #expect(idle.merger.inbox.withLock { $0.isEmpty })
        #expect(!hasMail(idle))
    }

    @Test func aMergerThatIsOffTakesTheNotesAndDropsThem() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        context.automaticallyMergesChanges = false
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        let writer = ManagedObjectContext(container)
        try writer.fetch(FetchDescriptor<Post>())[0].title = "elsewhere"
        try writer.save()
        #expect(context.merger.inbox.withLock { $0.count } == 1)
        #expect(!context.hasChanges)  // an entry point: the note is taken, and dropped
        #expect(post.title == "Title 1")
        #expect(context.merger.inbox.withLock { $0.isEmpty })
        // Turned on again, it merges the next save: the row is read whole, so what the
        // dropped note named comes in with it.
        context.automaticallyMergesChanges = true
        try writer.fetch(FetchDescriptor<Post>())[0].body = "new body"
        try writer.save()
        #expect(!context.hasChanges)
        #expect(post.body == "new body" && post.title == "elsewhere")
    }

    @Test func aRefreshKeepsOrDropsTheObjectsOwnChanges() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        context.automaticallyMergesChanges = false
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        post.title = "mine"
        let writer = ManagedObjectContext(container)
        let theirs = try writer.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "theirs"
        theirs.body = "their body"
        try writer.save()
        let state = try context.identity.state(forType: Post.self)
        // Kept: this context's title stays a change; the body, unchanged here, is the store's;
        // a rollback now puts back what the store holds, not what the object was fetched with.
        try context.merger.refresh([post], in: state, keepingChanges: true)
        #expect(post.title == "mine" && post.body == "their body")
        #expect(context.hasChanges)
        context.rollback()
        #expect(post.title == "theirs")
        // Dropped: every attribute is the store's, and nothing is left to save.
        post.title = "mine again"
        try context.merger.refresh([post], in: state, keepingChanges: false)
        #expect(post.title == "theirs" && !context.hasChanges)
    }

    @Test func anObjectWhoseRowIsGoneLeavesAtRefresh() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        context.automaticallyMergesChanges = false
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        let writer = ManagedObjectContext(container)
        writer.delete(try writer.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))[0])
        try writer.save()
        let state = try context.identity.state(forType: Post.self)
        try context.merger.refresh(posts, in: state, keepingChanges: true)
        #expect(posts[0].isRowDeleted && !posts[1].isRowDeleted)
        #expect(context.identity.registeredObject(for: posts[0].objectID) == nil)
        #expect(context.identity.registeredObject(for: posts[1].objectID) === posts[1])
    }

    private func hasMail(_ context: ManagedObjectContext) -> Bool {
        context.merger.hasMail.load(ordering: .relaxed)
    }
}
