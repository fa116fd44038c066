import Foundation
import Stash
import Testing

/// Under `.fail` a merge keeps this context's value for the save to fail on; a rollback
/// must still put back what the store holds, not what the context saw before the merge.
@Suite(.bothStores) struct FailMergeRollbackTests {
    @Test func aRollbackAfterAConflictShowsTheOtherContextsValue() throws {
        let (container, _) = try savedPosts(1)
        let a = ManagedObjectContext(container)
        a.mergePolicy = .fail
        let b = ManagedObjectContext(container)
        let mine = try a.fetch(FetchDescriptor<Post>())[0]
        mine.title = "from a"
        let theirs = try b.fetch(FetchDescriptor<Post>())[0]
        theirs.title = "from b"
        try b.save()
        let error = #expect(throws: StashError.self) { try a.save() }
        #expect(error?.code == .conflict)
        a.rollback()
        #expect(!a.hasChanges)
        #expect(mine.title == "from b")
        // A later whole-object save of another attribute writes the object as A shows it.
        a.mergePolicy = .overwrite
        mine.body = "edited"
        try a.save()
        let fresh = try ManagedObjectContext(container).fetch(FetchDescriptor<Post>())[0]
        #expect(fresh.title == "from b")
        #expect(fresh.body == "edited")
    }
}
