import Foundation
import Stash
import Testing

/// Objects decoded for a stored row without loading it (`UniqueResolver.adoptRow`): their
/// unloaded attributes and the edits made before they were loaded, across merges and rollback.
@Suite(.bothStores) struct PartialObjectMergeTests {
    /// Under `.storedWins` a merge drops only what the other side changed. A read flag set on
    /// an object decoded for a stored row (its `read` never loaded) is the user's; another
    /// context's save that changed only `title` must not drop it.
    @Test func aReadFlagSetOnAPartlyLoadedObjectSurvivesAStoredWinsMerge() throws {
        let (container, _) = try savedPosts(1)
        let a = ManagedObjectContext(container)
        a.mergePolicy = .storedWins
        let post = try recipeDecoder(a).decode(Post.self, from: json(#"{"id": 1}"#))
        post.read = true  // `read` was never loaded
        let b = ManagedObjectContext(container)
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "title from b"
        try b.save()
        _ = try a.fetch(FetchDescriptor<Post>())  // merges b's save
        #expect(post.title == "title from b")
        #expect(post.read, "the merge dropped the unsaved read flag")
        #expect(a.hasChanges)
        try a.save()
        let fresh = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())[0]
        #expect(fresh.title == "title from b")
        #expect(fresh.read, "the read flag never reached the store")
    }

    /// A partly loaded object filled by a fault, then rolled back, in a context that keeps
    /// what its objects loaded (no merges): a later fetch must leave it reading one version
    /// of its row, not `title` from before another save and `body` from after it. Rollback
    /// marks `body` (loaded by the fault) not loaded again, and the fetch fills it alone.
    @Test func rollbackAfterAFaultFillDoesNotMixTwoVersionsOfTheRow() throws {
        let (container, _) = try savedPosts(1)
        let a = ManagedObjectContext(container)
        a.automaticallyMergesChanges = false  // keeps what its objects loaded
        let post = try recipeDecoder(a).decode(Post.self, from: json(#"{"id": 1, "title": "Draft"}"#))
        #expect(post.body == "Body of post 1\nline 2")  // the fault loads the row
        let b = ManagedObjectContext(container)
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "title from b"
        theirs.body = "body from b"
        try b.save()
        a.rollback()  // drops the draft title
        #expect(post.title == "Title 1")
        #expect(post.body == "Body of post 1\nline 2")
        _ = try a.fetch(FetchDescriptor<Post>())
        let seen = [post.title, post.body]
        #expect(
            seen == ["Title 1", "Body of post 1\nline 2"] || seen == ["title from b", "body from b"],
            "one object reads two versions of its row: \(seen)")
    }
}
