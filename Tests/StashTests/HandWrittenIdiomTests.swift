import Foundation
import Stash
import Testing

/// The Core Data idiom: `required convenience init(from:)` that calls `init(context:)` and
/// sets its own attributes. Every object it returns must lead to the row.
@Suite(.bothStores) struct HandWrittenIdiomTests {
    @Test func anEditThroughTheSecondDecodeReachesTheRow() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 3))
        let second = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 3))
        try context.save()
        second[0].title = "edited"
        #expect(context.hasChanges)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>())
        #expect(stored.count == 3)
        #expect(stored[0].title == "edited")
    }

    @Test func aStandInEncodesTheValuesOfTheObjectItStandsFor() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = try recipeDecoder(context).decode(Post.self, from: postsJSON(count: 1).dropFirst().dropLast())
        let made = Post(context: context)
        made.id = 1  // taken: `made` now stands in for `first`
        made.title = "through the stand-in"
        #expect(first.title == "through the stand-in")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(made) == encoder.encode(first))
        #expect(try context.fetch(FetchDescriptor<Post>()).count == 1)
    }

    @Test func theSecondDecodeShowsTheMergedValuesBeforeSave() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2))
        let second = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2, titlePrefix: "New"))
        #expect(first[0].title == "New 1")
        #expect(second[0].title == "New 1")
        second[1].body = "through the second"
        #expect(first[1].body == "through the second")
        #expect(try context.fetch(FetchDescriptor<HandPost>()).count == 2)
        try context.save()
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>()).map(\.body)[1]
                == "through the second")
    }

    @Test func theIdiomFindsAStoredRowInAFreshContext() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let writer = ManagedObjectContext(container)
        _ = try recipeDecoder(writer).decode([HandPost].self, from: postsJSON(count: 2))
        try writer.save()
        let context = ManagedObjectContext(container)
        let again = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2, titlePrefix: "New"))
        again[0].body = "edited"
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>())
        #expect(stored.map(\.title) == ["New 1", "New 2"])
        #expect(stored[0].body == "edited")
    }

    /// The idiom sets every attribute, as an edit would: setting a saved attribute to the
    /// value it has is no change, whether the context had loaded it or not.
    @Test func reDecodingAnUnchangedPayloadChangesNothing() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let writer = ManagedObjectContext(container)
        _ = try recipeDecoder(writer).decode([HandPost].self, from: postsJSON(count: 3))
        try writer.save()
        // Loaded objects: compared with the rows by the save.
        _ = try recipeDecoder(writer).decode([HandPost].self, from: postsJSON(count: 3))
        #expect(try writer.saveChanges().updated.isEmpty)
        #expect(!writer.hasChanges)

        // A fresh context finds the rows by id without loading them: the save compares.
        let fresh = ManagedObjectContext(container)
        let again = try recipeDecoder(fresh).decode([HandPost].self, from: postsJSON(count: 3))
        _ = try recipeDecoder(fresh).decode([HandPost].self, from: postsJSON(count: 1, firstID: 2, titlePrefix: "New"))
        let changes = try fresh.saveChanges()
        #expect(changes.updated == [again[1].objectID])
        let stored = try ManagedObjectContext(container).fetch(
            FetchDescriptor<HandPost>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.title) == ["Title 1", "New 2", "Title 3"])
        #expect(stored.map(\.body) == (1...3).map { "Body of post \($0)\nline 2" })
    }

    /// Another context saved the row since this one loaded it: setting the value this one
    /// last saw is compared with the merged value, so it is a change and is written.
    @Test func settingTheValueAnotherContextReplacedIsAChange() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 1))[0]
        try context.save()
        let other = ManagedObjectContext(container)
        try other.fetch(FetchDescriptor<HandPost>())[0].title = "from the other context"
        try other.save()
        post.title = "Title 1"
        #expect(post.hasChanges)
        try context.save()
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>()).map(\.title) == ["Title 1"])
    }

    /// A change the context could not compare yet (its row not loaded) is still undone by
    /// `rollback()`: the stored value reads back.
    @Test func rollbackUndoesAnUncomparedChange() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let writer = ManagedObjectContext(container)
        _ = try recipeDecoder(writer).decode([HandPost].self, from: postsJSON(count: 2))
        try writer.save()
        let fresh = ManagedObjectContext(container)
        let changed = try recipeDecoder(fresh).decode([HandPost].self, from: postsJSON(count: 2, titlePrefix: "New"))
        #expect(changed[0].title == "New 1")
        fresh.rollback()
        #expect(!fresh.hasChanges)
        let stored = try fresh.fetch(FetchDescriptor<HandPost>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.title) == ["Title 1", "Title 2"])
        #expect(try fresh.saveChanges().updated.isEmpty)
    }
}

/// The idiom with its unique attribute decoded last.
final class LateKeyPost: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    enum CodingKeys: String, CodingKey { case id, title }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try contextOf(decoder))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        id = try container.decode(Int.self, forKey: .id)
    }
}

@Suite(.bothStores) struct HandWrittenIdiomPolicyTests {
    @Test func aStandInDeletesAndEncodesTheObjectItStandsFor() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2))
        try context.save()
        let second = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 2, titlePrefix: "New"))
        let holder = try context.fetch(FetchDescriptor<HandPost>())[0]
        #expect(second[0] !== holder && second[0].objectID == holder.objectID)
        context.delete(second[0])
        #expect(holder.isDeleted && second[0].isDeleted)
        try context.save()
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>()).map(\.id) == [2])
    }

    @Test func failPolicyKeepsTheIdiomsObjectApartAndTheSaveFails() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 1))
        try context.save()
        context.mergePolicy = .fail
        let again = try recipeDecoder(context).decode([HandPost].self, from: postsJSON(count: 1, titlePrefix: "New"))
        #expect(again[0].isInserted)
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .uniqueConflict && error?.attribute == "id")
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<HandPost>()).map(\.title) == ["Title 1"])
    }

    /// The idiom assigns through properties, as an app edits: Stash cannot tell the two
    /// apart. Under `.storedWins` what it set before the unique attribute is dropped, and what
    /// it sets after is an edit of the stored object.
    @Test func storedWinsKeepsWhatTheIdiomSetBeforeItsUniqueAttribute() throws {
        let container = try testContainer(for: HandPost.self, LateKeyPost.self, inMemory: true)
        let writer = ManagedObjectContext(container)
        _ = try recipeDecoder(writer).decode([LateKeyPost].self, from: json(#"[{"id": 1, "title": "stored"}]"#))
        _ = try recipeDecoder(writer).decode([HandPost].self, from: postsJSON(count: 1))
        try writer.save()

        let context = ManagedObjectContext(container)
        context.mergePolicy = .storedWins
        let late = try recipeDecoder(context).decode(LateKeyPost.self, from: json(#"{"id": 1, "title": "incoming"}"#))
        #expect(late.title == "stored")
        let early = try recipeDecoder(context).decode(
            HandPost.self, from: json(#"{"id": 1, "userId": 9, "title": "incoming", "body": "b"}"#))
        #expect(early.title == "incoming")
        try context.save()
        let stored = ManagedObjectContext(container)
        #expect(try stored.fetch(FetchDescriptor<LateKeyPost>()).map(\.title) == ["stored"])
        #expect(try stored.fetch(FetchDescriptor<HandPost>()).map(\.title) == ["incoming"])
    }
}
