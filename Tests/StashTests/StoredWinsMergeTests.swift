import Foundation
import Stash
import Testing

/// Under `.storedWins` a merge decides only where both sides changed an attribute: an
/// unsaved edit to an attribute the other save did not touch is kept, and saved.
@Suite(.bothStores) struct StoredWinsMergeTests {
    /// Another context of the container changed `title`; this one changed `body` and `read`.
    @Test func anEditToAnAttributeAnotherContextDidNotChangeSurvivesTheMerge() throws {
        let (container, _) = try savedPosts(1)
        let a = ManagedObjectContext(container)
        a.mergePolicy = .storedWins
        let b = ManagedObjectContext(container)
        let mine = try a.fetch(FetchDescriptor<Post>())[0]
        mine.body = "body from a"
        mine.read = true
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "title from b"
        try b.save()
        _ = try a.fetch(FetchDescriptor<Post>())  // merges b's save
        #expect(mine.title == "title from b")
        #expect(mine.body == "body from a")
        #expect(mine.read)
        #expect(a.hasChanges)
        try a.save()
        let fresh = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())[0]
        #expect(fresh.title == "title from b")
        #expect(fresh.body == "body from a")
        #expect(fresh.read)
    }

    /// The same through another container on the same file (another process): the fetch
    /// that meets the row takes it in with `Merger.take`, as a merge does.
    @Test func anEditSurvivesAnotherContainersCommitToAnotherAttribute() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(1, at: directory.file())
        let a = ManagedObjectContext(container)
        a.mergePolicy = .storedWins
        let mine = try a.fetch(FetchDescriptor<Post>())[0]
        mine.body = "body from a"
        let other = ManagedObjectContext(try testContainer(for: Post.self, storeURL: directory.file()))
        let theirs = try other.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "title from the other container"
        try other.save()
        _ = try a.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))
        #expect(mine.body == "body from a")
        try a.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT title, body FROM Post WHERE id = 1")
                == "title from the other container|body from a\n")
    }
}
