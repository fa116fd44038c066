import Foundation
import Testing

@testable import Stash

/// The context's change tracker alone: the values it keeps of a saved object before its
/// first change, what a rollback puts back, and what its journal undoes.
@Suite struct ChangeTrackerTests {
    @Test func aSavedObjectsValuesAreKeptOnceBeforeItsFirstChange() throws {
        let (_, context) = try savedPosts(1)
        let post = try ManagedObjectContext(context.container).fetch(FetchDescriptor<Post>())[0]
        let tracked = try #require(post.managedObjectContext)
        let state = try tracked.identity.state(forType: Post.self)
        let title = try #require(state.entity.attribute(named: "title")).index
        #expect(state.updated.isEmpty)
        post.title = "first"
        post.title = "second"
        let saved = try #require(state.updated[ObjectIdentifier(post)])
        #expect(saved.values.value(atSlot: title, of: post) as? String == "Title 1")
        tracked.tracker.rollback()
        #expect(post.title == "Title 1" && !tracked.hasChanges && state.updated.isEmpty)
    }

    /// Values are kept one attribute at a time, as each is first changed: one changed after
    /// another, and one changed again, all go back to what was saved; one never changed is
    /// left as it is, a merged value included.
    @Test func eachAttributeIsKeptAsItIsFirstChanged() throws {
        let (_, context) = try savedPosts(1)
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        let state = try context.identity.state(forType: Post.self)
        post.title = "first"
        post.body = "changed later"
        post.title = "second"
        post.title = "third"
        let saved = try #require(state.updated[ObjectIdentifier(post)]?.values)
        let body = try #require(state.entity.attribute(named: "body")).index
        #expect(saved.value(atSlot: body, of: post) as? String == "Body of post 1\nline 2")
        // Another context saves the post's other attributes meanwhile: merged in, not undone.
        let other = try ManagedObjectContext(context.container).fetch(FetchDescriptor<Post>())[0]
        other.summary = "someone else's"
        try other.managedObjectContext!.save()
        _ = context.hasChanges  // an entry point: the other save is merged in
        #expect(post.summary == "someone else's")
        context.tracker.rollback()
        #expect(post.title == "Title 1" && post.body == "Body of post 1\nline 2")
        #expect(post.summary == "someone else's")
        #expect(!context.hasChanges)
    }

    /// A value set again (restated) becomes a change when another context moves the row on
    /// under `.fail`: what this context saw is kept then, so a later edit still conflicts (a
    /// review found it lost once values were kept an attribute at a time). A rollback reads
    /// the attribute from the row: what this context saw is a value no row holds now, which a
    /// later `.overwrite` save wrote back (`FailMergeRollbackTests`).
    @Test func aRestatedValueThatBecomesAChangeKeepsWhatTheContextSaw() throws {
        for ending in ["save", "rollback"] {
            let (container, context) = try savedPosts(1)
            context.mergePolicy = .fail
            let post = try context.fetch(FetchDescriptor<Post>())[0]
            post.title = "Title 1"  // as it is: restated
            let other = ManagedObjectContext(container)
            try other.fetch(FetchDescriptor<Post>())[0].title = "moved on"
            try other.save()
            context.refresh(post, mergeChanges: true)
            post.title = "moved on"  // the row's value now, not what this context saw
            if ending == "save" {
                let error = #expect(throws: StashError.self) { try context.save() }
                #expect(error?.code == .conflict && error?.attribute == "title")
            } else {
                context.tracker.rollback()
                #expect(post.title == "moved on")
                #expect(!context.hasChanges)
            }
        }
    }

    /// An object decoded for a stored row the context never loaded keeps no saved values:
    /// a rollback marks what changed as not loaded, so it is read from the row again. Its
    /// unique attribute included: changed after the decode, it read as unset (a trap) after
    /// the rollback.
    @Test func aRollbackOfARowDecodedWithoutLoadingItReadsTheRowAgain() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        let post = try context.decode([Post].self, from: postsJSON(count: 1, titlePrefix: "Decoded"))[0]
        #expect(post.title == "Decoded 1")
        post.id = 99
        context.rollback()
        #expect(post.id == 1 && post.title == "Title 1" && post.body == "Body of post 1\nline 2")
        #expect(!context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 })).first === post)
    }

    @Test func aRollbackSendsNewObjectsAwayAndBringsDeletedOnesBack() throws {
        let (_, context) = try savedPosts(2)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        context.delete(posts[0])
        let added = Post(context: context)
        added.id = 3
        #expect(posts[0].state == .deleted && added.state == .inserted)
        context.tracker.rollback()
        #expect(posts[0].state == .persisted && added.state == .transient && added.managedObjectContext == nil)
        #expect(!context.hasChanges)
        // The unique index names the object that came back, not the one that left.
        let state = try context.identity.state(forType: Post.self)
        #expect(state.lookup(0, .integer(1), in: context) === posts[0])
        #expect(state.lookup(0, .integer(3), in: context) == nil)
    }

    @Test func theJournalUndoesExactlyWhatHappenedWhileItWasActive() throws {
        let (_, context) = try savedPosts(2)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        posts[0].title = "before the journal"
        let early = Post(context: context)
        early.id = 7
        early.userId = 1
        early.body = ""
        early.title = "new before the journal"
        let journal = ChangeJournal(unreconciled: 0, firstNewID: context.identity.nextTemporaryID)
        context.tracker.journal = journal
        posts[0].title = "in the journal"
        posts[1].body = "in the journal"
        early.title = "in the journal"
        let added = Post(context: context)
        added.id = 9
        added.title = "new in the journal"
        context.tracker.journal = nil
        journal.undo(in: context)
        // What came before the journal stays; what it recorded is undone. An object inserted
        // before it is changed back; one inserted since leaves.
        #expect(posts[0].title == "before the journal" && posts[1].body == "Body of post 2\nline 2")
        #expect(early.title == "new before the journal" && early.managedObjectContext === context)
        #expect(added.managedObjectContext == nil)
        #expect(context.hasChanges)
        try context.save()
        let reread = try ManagedObjectContext(context.container).fetch(
            FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(reread.map(\.title) == ["before the journal", "Title 2", "new before the journal"])
    }
}
