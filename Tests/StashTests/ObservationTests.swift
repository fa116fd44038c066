import Foundation
import Observation
import TestProcesses
import Testing

@testable import Stash

/// Saves reach observers: `observe` delivers fetch results again, and Observation sees
/// attribute changes of the main context's objects.
@Suite(.bothStores) struct ObservationTests {
    @MainActor
    @Test func observeDeliversTheResultsThenAgainAfterEachSave() async throws {
        let container = try testContainer(for: Post.self, Note.self, inMemory: true)
        var unread = FetchDescriptor<Post>(predicate: #Predicate { !$0.read }, sortBy: [SortDescriptor(\.id)])
        unread.fetchLimit = 10
        var deliveries: [[Int]] = []
        let saves = Task {
            try await container.performBackgroundTask { context in
                _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
                try context.save()
            }
            // A save of another entity does not touch the observed fetch.
            try await container.performBackgroundTask { context in
                _ = try recipeDecoder(context).decode([Note].self, from: json(#"[{"text": "n"}]"#))
                try context.save()
            }
            try await container.performBackgroundTask { context in
                try context.fetch(FetchDescriptor<Post>())[1].read = true
                try context.save()
            }
        }
        for try await posts in container.mainContext.observe(unread) {
            deliveries.append(posts.map(\.id))
            if deliveries.count == 3 { break }
        }
        try await saves.value
        #expect(deliveries == [[], [1, 2, 3], [1, 3]])
    }

    /// An observer told of a merged value changes another attribute of the same changed
    /// object, in the middle of the merge: that change's saved value is kept, and a rollback
    /// puts it back. (A merge that wrote back a copy of the saved state it made before the
    /// observer ran would drop it: a review's finding, before it could ship.)
    @MainActor
    @Test func aChangeAnObserverMakesDuringAMergeIsRolledBack() async throws {
        var userBefore = 0
        let post = try await mergeWhileObserved(
            before: { post in
                post.title = "changed here"
                userBefore = post.userId
            },
            // An attribute the merge has passed already (it goes in declaration order).
            observer: { $0.userId = 4_242 },
            elsewhere: { $0.body = "elsewhere" })
        #expect(post.body == "elsewhere" && post.userId == 4_242)
        post.managedObjectContext!.rollback()
        #expect(post.title == "Title 1" && post.userId == userBefore && post.body == "elsewhere")
    }

    /// The object had no change here until an observer of the merge made one: the rest of
    /// the merge still records what the row holds for it, so a rollback gives the other
    /// context's value, not the one before the merge (the merge once decided whether to
    /// record anything before its loop).
    @MainActor
    @Test func aChangeAnObserverMakesFirstDuringAMergeRollsBackToTheRow() async throws {
        let post = try await mergeWhileObserved(
            before: { _ in },
            // An attribute the merge reaches after the body (declaration order).
            observer: { $0.summary = "mine" },
            elsewhere: { other in
                other.body = "elsewhere"
                other.summary = "theirs"
            })
        #expect(post.body == "elsewhere" && post.summary == "mine")
        post.managedObjectContext!.rollback()
        #expect(post.summary == "theirs" && post.body == "elsewhere" && !post.managedObjectContext!.hasChanges)
    }

    /// A saved post in the main context, `before` applied to it; then another context's save
    /// made by `elsewhere` is merged in while `observer` runs, told of the body's change in
    /// the middle of the merge, on the main actor.
    @MainActor
    private func mergeWhileObserved(
        before: (Post) -> Void, observer: @escaping @MainActor (Post) -> Void,
        elsewhere: @escaping @Sendable (Post) -> Void
    ) async throws -> Post {
        let container = try testContainer(for: Post.self, inMemory: true)
        try await container.performBackgroundTask { context in
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1))
            try context.save()
        }
        let context = container.mainContext
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        before(post)
        let merged = Flag()
        let postID = post.objectID
        withObservationTracking {
            _ = post.body
        } onChange: {
            MainActor.assumeIsolated {
                if let post = container.mainContext.registeredObject(for: postID) as? Post { observer(post) }
            }
            merged.set()
        }
        try await container.performBackgroundTask { context in
            elsewhere(try context.fetch(FetchDescriptor<Post>())[0])
            try context.save()
        }
        _ = await eventually {
            _ = context.hasChanges  // an entry point: the save is merged in
            return merged.isSet
        }
        #expect(merged.isSet)
        return post
    }

    @MainActor
    @Test func observationSeesChangesMadeHereAndMergedFromElsewhere() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        try await container.performBackgroundTask { context in
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 2))
            try context.save()
        }
        let post = try container.mainContext.fetch(FetchDescriptor<Post>())[0]
        let changed = Flag()
        withObservationTracking {
            _ = post.title
        } onChange: {
            changed.set()
        }
        post.title = "here"
        #expect(changed.isSet)

        let merged = Flag()
        withObservationTracking {
            _ = post.body
        } onChange: {
            merged.set()
        }
        try await container.performBackgroundTask { context in
            try context.fetch(FetchDescriptor<Post>())[0].body = "elsewhere"
            try context.save()
        }
        _ = await eventually { merged.isSet }
        #expect(merged.isSet && post.body == "elsewhere" && post.title == "here")
    }

    /// An object's registrar is made by its first read: changes before it go unreported (no
    /// one can be tracking them), and the first read under tracking sees the next one.
    @Test @MainActor func anObjectChangedBeforeAnyReadIsTrackedFromItsFirstRead() throws {
        let (container, _) = try savedPosts(2)
        let posts = try container.mainContext.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        posts[0].title = "before any read"
        // Neither has a registrar yet: neither was read.
        #expect(posts.allSatisfy { $0.registrar == nil })
        let changed = Flag()
        withObservationTracking {
            _ = posts[0].title
        } onChange: {
            changed.set()
        }
        #expect(posts[0].registrar != nil && posts[1].registrar == nil)
        posts[1].title = "another object"
        #expect(!changed.isSet)
        posts[0].title = "after"
        #expect(changed.isSet)
    }

    @Test func aContextThatDoesNotObserveReportsNothing() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        #expect(!context.observesObjects)
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        let changed = Flag()
        withObservationTracking {
            _ = post.title
        } onChange: {
            changed.set()
        }
        post.title = "unobserved"
        #expect(!changed.isSet)
        context.observesObjects = true
        withObservationTracking {
            _ = post.title
        } onChange: {
            changed.set()
        }
        post.title = "observed"
        #expect(changed.isSet)
    }
}

/// A flag an Observation callback can set from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
