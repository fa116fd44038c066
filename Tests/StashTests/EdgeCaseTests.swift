import Foundation
import Stash
import Testing

/// A model with two unique attributes.
final class Account: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute(.unique) var email: String?
    @Attribute var name: String
}

/// Corners of change tracking and upsert that a simple test would miss.
@Suite(.bothStores) struct EdgeCaseTests {
    @Test func deletingAndInsertingANewObjectAgainWritesOneRow() throws {
        let context = ManagedObjectContext(try testContainer(for: Note.self, inMemory: true))
        let note = Note(context: context)
        note.text = "once"
        context.delete(note)
        context.insert(note)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 1)
        #expect(try context.fetch(FetchDescriptor<Note>()).count == 1)
    }

    @Test func savingAnObjectWhoseRowWasDeletedElsewhereFails() throws {
        let (container, writer) = try savedPosts(2)

        let stale = ManagedObjectContext(container)
        let post = try stale.fetch(FetchDescriptor<Post>())[0]
        writer.delete(try writer.fetch(FetchDescriptor<Post>())[0])
        try writer.save()

        post.title = "edited after the row was deleted"
        let error = #expect(throws: StashError.self) { try stale.save() }
        #expect(error?.code == .rowMissing)
        #expect(error?.entity == "Post")
        #expect(stale.hasChanges)
    }

    @Test func rollbackOfADeletionKeepsTheObjectFindableByItsUniqueValue() throws {
        let (_, context) = try savedPosts(1)
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        context.delete(post)
        let replacement = try recipeDecoder(context).decode(Post.self, from: postsJSON(count: 1).dropFirst().dropLast())
        #expect(replacement !== post)
        context.rollback()
        let again = try recipeDecoder(context).decode(Post.self, from: postsJSON(count: 1).dropFirst().dropLast())
        #expect(again === post)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 1)
    }

    @Test func secondUniqueAttributeIsDecodedAndKept() throws {
        let context = ManagedObjectContext(try testContainer(for: Account.self, inMemory: true))
        let decoder = recipeDecoder(context)
        let account = try decoder.decode(Account.self, from: json(#"{"id": 1, "email": "a@x.test", "name": "A"}"#))
        try context.save()
        let renamed = try decoder.decode(Account.self, from: json(#"{"id": 1, "name": "B"}"#))
        #expect(renamed === account)
        #expect(account.email == "a@x.test")
        #expect(account.name == "B")
        let moved = try decoder.decode(Account.self, from: json(#"{"id": 1, "email": "b@x.test"}"#))
        #expect(moved === account && account.email == "b@x.test")
        let byEmail = try decoder.decode(Account.self, from: json(#"{"email": "b@x.test", "name": "C"}"#))
        #expect(byEmail === account && account.name == "C")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Account>()) == 1)
    }

    @Test func aFailedSaveLeavesTheIdiomsStandInsAsTheyWere() throws {
        let container = try testContainer(for: HandPost.self, Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 1))[0]
        let second = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 1, titlePrefix: "New"))[
            0]
        // The second decode found the first object: it stands in for it.
        #expect(first.title == "New 1" && second.title == "New 1")
        #expect(second.objectID == first.objectID && second.isInserted)
        let incomplete = Post(context: context)
        incomplete.id = 1  // title, body and userId never set
        #expect(throws: StashError.self) { try context.save() }
        #expect(first.title == "New 1" && first.isInserted)
        context.delete(incomplete)
        try context.save()
        #expect(first.title == "New 1" && !second.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<HandPost>()) == 1)
    }

    @Test func reimportingTheSamePayloadLeavesNothingToSave() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        let held = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5))
        try context.save()
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5))
        #expect(!context.hasChanges)
        #expect(held.count == 5)
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 5, titlePrefix: "Other"))
        #expect(context.hasChanges)
    }

    @Test func fetchCountFollowsADeletionAndAReinsertOfTheSameValue() throws {
        let context = ManagedObjectContext(try testContainer(for: Post.self, inMemory: true))
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 3))
        try context.save()
        context.delete(try context.fetch(FetchDescriptor<Post>())[0])
        _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: 1))
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
    }
}
