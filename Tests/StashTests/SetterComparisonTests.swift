import Foundation
import Stash
import Testing

/// Setting a saved attribute to the value the context last saw for it is no change, as in
/// Core Data: only what the object changed is written. The rest of the contract is what
/// that must not break.
@Suite struct SetterComparisonTests {
    func savedPost() throws -> (TemporaryDirectory, PersistentContainer, ManagedObjectContext, Post) {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(1, at: directory.file())
        let context = ManagedObjectContext(container)
        return (directory, container, context, try context.fetch(FetchDescriptor<Post>())[0])
    }

    @Test func aValueSetAsItIsIsNoChange() throws {
        let (_, _, context, post) = try savedPost()
        post.title = post.title
        post.read = false
        #expect(!context.hasChanges && !post.hasChanges)
        #expect(try context.saveChanges().updated.isEmpty)
        post.title = post.title
        post.body = "changed"
        #expect(try context.saveChanges().updated == [post.objectID])
        #expect(!context.hasChanges)
    }

    /// A form sets every field: the ones left as they were do not overwrite what another
    /// process wrote meanwhile, whatever the merge policy; the one changed is written.
    @Test func fieldsLeftAsTheyWereKeepAnotherWritersValues() throws {
        for policy in [MergePolicy.incomingWins, .storedWins, .fail] {
            let (directory, _, context, post) = try savedPost()
            context.mergePolicy = policy
            _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
            post.title = "Title 1"  // as the context saw it
            post.read = true
            try context.save()
            #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == "from the shell|1\n")
        }
    }

    /// Text is compared by its bytes, as the store keeps it: the other Unicode form of the
    /// same word is a change.
    @Test func theOtherUnicodeFormIsAChange() throws {
        let (directory, _, context, post) = try savedPost()
        post.title = "caf\u{E9}"
        try context.save()
        post.title = "cafe\u{301}"  // equal as Swift Strings
        #expect(post.hasChanges)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT hex(title) FROM Post") == "63616665CC81\n")
    }

    /// A date is kept to the millisecond: one within the same millisecond is no change, and
    /// the object reads the date it was given.
    @Test func aValueTheStoreKeepsAlikeIsNoChangeAndReadsAsGiven() throws {
        let container = try PersistentContainer(for: Sample.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let sample = Sample(context: context)
        sample.id = 1
        sample.date = Date(timeIntervalSince1970: 1_000)
        try context.save()
        let close = Date(timeIntervalSince1970: 1_000.000_3)
        sample.date = close
        #expect(!context.hasChanges)
        #expect(sample.date == close)
    }

    /// A rollback puts back what the object last saw, merged saves of other contexts
    /// included; setting the value it had before that merge is then a change.
    @Test func rollbackAfterAMergeShowsTheMergedValue() throws {
        let (directory, container, context, post) = try savedPost()
        post.body = "local edit"
        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<Post>())[0].title = "from the other context"
        try other.save()
        #expect(context.hasChanges)  // a call into the context: it merges the other's save
        #expect(post.title == "from the other context")
        context.rollback()
        #expect(post.title == "from the other context")
        #expect(post.body == "Body of post 1\nline 2")
        post.title = "Title 1"
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT title FROM Post") == "Title 1\n")
    }

    @Test func anInstanceChangedInPlaceIsWritten() throws {
        let container = try PersistentContainer(for: Preferences.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let preferences = Preferences(context: context)
        preferences.id = 1
        try context.save()
        let settings = preferences.settings
        settings.dark = true
        preferences.settings = settings
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Preferences>())
        #expect(stored.map(\.settings.dark) == [true])
    }

    @Test func aValueSetOnARowDeletedElsewhereFailsTheSave() throws {
        let (_, container, context, post) = try savedPost()
        let other = ManagedObjectContext(container)
        other.delete(try other.fetch(FetchDescriptor<Post>())[0])
        try other.save()
        post.title = "Title 1"
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .rowMissing)
    }
}

/// A class kept as JSON: the same instance, changed in place, is set back.
final class Settings: Codable {
    var dark = false
}

final class Preferences: ManagedObject {
    @Attribute(.unique) var id: Int = 0
    @Attribute var settings = Settings()
}
