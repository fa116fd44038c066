import Foundation
import Stash
import Testing

/// Setting a saved attribute to the value the context last saw for it is no change as far
/// as the context knows (`hasChanges`), but the save compares it with the row inside its
/// transaction: a row another writer moved on is put back to what the caller set.
@Suite(.bothStores) struct SetterComparisonTests {
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

    /// A field the caller never set keeps what another process wrote meanwhile, whatever
    /// the merge policy; the one changed is written.
    @Test func fieldsNotSetKeepAnotherWritersValues() throws {
        for policy in [MergePolicy.incomingWins, .storedWins, .fail] {
            let (directory, _, context, post) = try savedPost()
            context.mergePolicy = policy
            _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
            post.read = true
            try context.save()
            #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == "from the shell|1\n")
        }
    }

    /// A form sets every field, some to what the context saw. Meanwhile another process
    /// changed one of those: under `.incomingWins` the form's value is what the row holds
    /// (the save compares inside its transaction, so no row mixes the two writers);
    /// `.storedWins` keeps the other's; `.fail` fails and writes nothing.
    @Test func fieldsSetAsTheyWereAreComparedInsideTheSave() throws {
        let expected: [(MergePolicy, String?)] = [
            (.incomingWins, "Title 1|1\n"), (.storedWins, "from the shell|1\n"), (.fail, nil),
        ]
        for (policy, row) in expected {
            let (directory, _, context, post) = try savedPost()
            context.mergePolicy = policy
            _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
            post.title = "Title 1"  // as the context saw it
            post.read = true
            #expect(post.hasChanges)
            if let row {
                try context.save()
                #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == row)
            } else {
                #expect(throws: StashError.self) { try context.save() }
                #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == "from the shell|0\n")
            }
        }
    }

    /// Only restated fields: no change as far as the context knows, yet the save puts the
    /// row back to them when another process moved it on, and writes nothing when not.
    @Test func aRestatedRowIsWrittenOnlyIfTheStoreMovedOn() throws {
        let (directory, _, context, post) = try savedPost()
        post.title = "Title 1"
        #expect(!context.hasChanges)
        #expect(try context.saveChanges().updated.isEmpty)
        #expect(try sqliteShell(directory.file(), "SELECT title FROM Post") == "Title 1\n")
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
        post.title = "Title 1"
        #expect(try context.saveChanges().updated == [post.objectID])
        #expect(try sqliteShell(directory.file(), "SELECT title FROM Post") == "Title 1\n")
    }

    /// The issue's reproduction by decoding: a long-lived context and a fresh one each
    /// decode a payload that repeats a value another process has changed since; the row
    /// is the payload's, whole, and the report counts it.
    @Test func aDecodedValueAsTheContextSawItIsWrittenWhenTheRowMovedOn() throws {
        let directory = try TemporaryDirectory()
        let (container, longLived) = try savedPosts(2, at: directory.file())
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell', userId = 99")
        let payload = json(#"[{"id": 1, "userId": 1, "title": "Title 1", "body": "new"}]"#)
        _ = try recipeDecoder(longLived).decode([Post].self, from: payload)
        #expect(try longLived.saveChanges().updated.count == 1)
        let fresh = ManagedObjectContext(container)
        _ = try recipeDecoder(fresh).decode(
            [Post].self, from: json(#"[{"id": 2, "userId": 2, "title": "Title 2", "body": "Body of post 2\nline 2"}]"#))
        #expect(try fresh.saveChanges().updated.count == 1)
        #expect(
            try sqliteShell(directory.file(), "SELECT id, userId, title, body FROM Post ORDER BY id")
                == "1|1|Title 1|new\n2|2|Title 2|Body of post 2\nline 2\n")
    }

    /// `.overwrite` writes the object whole: the attribute changed, and every other one the
    /// object has loaded, over what another process wrote meanwhile; an unchanged row is
    /// still not written.
    @Test func overwriteWritesTheWholeObject() throws {
        let (directory, container, context, post) = try savedPost()
        context.mergePolicy = .overwrite
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell', body = 'shell body'")
        post.read = true
        #expect(try context.saveChanges().updated == [post.objectID])
        #expect(
            try sqliteShell(directory.file(), "SELECT title, body, read FROM Post")
                == "Title 1|Body of post 1\nline 2|1\n")
        // A payload decoded for the row in a fresh context: what it lacks and the object never
        // loaded (`read`) keeps its stored value.
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell'")
        let fresh = ManagedObjectContext(container)
        fresh.mergePolicy = .overwrite
        _ = try recipeDecoder(fresh).decode([Post].self, from: postsJSON(count: 1))
        try fresh.save()
        #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == "Title 1|1\n")
        #expect(MergePolicy.overwrite.description == "overwrite" && MergePolicy.overwrite != .incomingWins)
    }

    /// A value restated in one context, then changed by a sibling's save: under
    /// `.incomingWins` the restated value is now a change and wins; under `.storedWins`
    /// the object takes the sibling's value.
    @Test func aSiblingsSaveMakesARestatedValueAChange() throws {
        for (policy, expected) in [(MergePolicy.incomingWins, "Title 1"), (.storedWins, "sibling")] {
            let (directory, container, context, post) = try savedPost()
            context.mergePolicy = policy
            post.title = "Title 1"
            let sibling = ManagedObjectContext(container)
            try sibling.fetch(FetchDescriptor<Post>())[0].title = "sibling"
            try sibling.save()
            #expect(context.hasChanges == (policy == .incomingWins))  // merges the sibling's save
            #expect(post.title == expected)
            try context.save()
            #expect(try sqliteShell(directory.file(), "SELECT title FROM Post") == expected + "\n")
        }
    }

    /// The hand-written `init(from:)` idiom re-decoding a row another process changed: the
    /// new object stands in for the stored one and its values, those as the context saw
    /// them included, are what the row holds after the save.
    @Test func theHandWrittenIdiomRestatesThroughItsStandIn() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: HandPost.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let first = #"[{"id": 1, "userId": 1, "title": "mine", "body": "b"}]"#
        _ = try recipeDecoder(context).decode([HandPost].self, from: json(first))
        try context.save()
        _ = try sqliteShellWriting(directory.file(), "UPDATE HandPost SET title = 'shell', userId = 9")
        _ = try recipeDecoder(context).decode(
            [HandPost].self, from: json(#"[{"id": 1, "userId": 1, "title": "mine", "body": "new"}]"#))
        #expect(try context.saveChanges().updated.count == 1)
        #expect(try sqliteShell(directory.file(), "SELECT userId, title, body FROM HandPost") == "1|mine|new\n")
        // Restated only, with the row moved on again: put back; with the row as given: nothing.
        _ = try sqliteShellWriting(directory.file(), "UPDATE HandPost SET title = 'shell'")
        _ = try recipeDecoder(context).decode(
            [HandPost].self, from: json(#"[{"id": 1, "userId": 1, "title": "mine", "body": "new"}]"#))
        #expect(try context.saveChanges().updated.count == 1)
        _ = try recipeDecoder(context).decode(
            [HandPost].self, from: json(#"[{"id": 1, "userId": 1, "title": "mine", "body": "new"}]"#))
        #expect(try context.saveChanges().updated.isEmpty)
        #expect(try sqliteShell(directory.file(), "SELECT userId, title, body FROM HandPost") == "1|mine|new\n")
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
        let container = try testContainer(for: Sample.self, inMemory: true)
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
        let container = try testContainer(for: Preferences.self, inMemory: true)
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
