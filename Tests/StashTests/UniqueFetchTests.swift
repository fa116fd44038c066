import Foundation
import TestProcesses
import Testing

@testable import Stash

/// `fetch(_:unique:_:)` answers what a fetch with `#Predicate { $0.key == value }` answers,
/// first object included, whatever the context holds: stored rows, unsaved inserts, edits and
/// deletions, other contexts' saves and other processes' commits.
@Suite(.bothStores) struct UniqueFetchTests {
    /// The predicate's answer, for comparison.
    private func predicateFetch(_ context: ManagedObjectContext, id: Int) throws -> Post? {
        try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == id })).first
    }

    @Test func aStoredRowIsTheObjectThePredicateFinds() throws {
        let (container, _) = try savedPosts(5)
        let context = ManagedObjectContext(container)
        let found = try #require(try context.fetch(Post.self, unique: \.id, 3))
        #expect(found.id == 3 && found.title == "Title 3")
        #expect(try predicateFetch(context, id: 3) === found)
        #expect(try context.fetch(Post.self, unique: \.id, 3) === found)
        #expect(try context.fetch(Post.self, unique: \.id, 99) == nil)
        #expect(!context.hasChanges)
    }

    /// Unsaved changes count as they do for any fetch: a new object is found, an edited key
    /// is found by its new value only, a deleted object not at all.
    @Test func unsavedInsertsEditsAndDeletionsCount() throws {
        let (_, context) = try savedPosts(5)
        let new = Post(context: context)
        new.id = 100
        new.userId = 1
        new.title = "new"
        new.body = ""
        let moved = try #require(try context.fetch(Post.self, unique: \.id, 1))
        moved.id = 101
        let deleted = try #require(try context.fetch(Post.self, unique: \.id, 2))
        context.delete(deleted)
        for id in [1, 2, 3, 100, 101] {
            #expect(try context.fetch(Post.self, unique: \.id, id) === (try predicateFetch(context, id: id)))
        }
        #expect(try context.fetch(Post.self, unique: \.id, 100) === new)
        #expect(try context.fetch(Post.self, unique: \.id, 101) === moved)
        #expect(try context.fetch(Post.self, unique: \.id, 1) == nil)
        #expect(try context.fetch(Post.self, unique: \.id, 2) == nil)
        try context.save()
        #expect(try context.fetch(Post.self, unique: \.id, 101) === moved)
        #expect(try context.fetch(Post.self, unique: \.id, 2) == nil)
    }

    /// Another context's save is merged before the look-up answers: the object the context
    /// holds shows the new title, and a row the other deleted is not found.
    @Test func anotherContextsSaveIsSeen() throws {
        let (container, context) = try savedPosts(5)
        let held = try #require(try context.fetch(Post.self, unique: \.id, 3))
        let other = ManagedObjectContext(container)
        try #require(try other.fetch(Post.self, unique: \.id, 3)).title = "edited elsewhere"
        other.delete(try #require(try other.fetch(Post.self, unique: \.id, 4)))
        try other.save()
        #expect(try context.fetch(Post.self, unique: \.id, 3) === held)
        #expect(held.title == "edited elsewhere")
        #expect(try context.fetch(Post.self, unique: \.id, 4) == nil)
    }

    /// A row another process changed or inserted since the context loaded it: the look-up
    /// answers the row as it is now, into the object the context holds.
    @Test func anotherProcessCommitIsSeen() throws {
        let directory = try TemporaryDirectory()
        let (_, context) = try savedPosts(3, at: directory.file())
        let held = try #require(try context.fetch(Post.self, unique: \.id, 1))
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
        #expect(try context.fetch(Post.self, unique: \.id, 1) === held)
        #expect(held.title == "from the shell")
        _ = try sqliteShellWriting(
            directory.file(),
            #"INSERT INTO "Post" ("id", "userId", "title", "body", "read") VALUES (7, 1, 'shell', 'b', 0)"#)
        #expect(try context.fetch(Post.self, unique: \.id, 7)?.title == "shell")
    }

    /// Text is compared as the predicate compares it: by code point, as unique values are
    /// kept, so a look-alike in another normalization form or case finds nothing. The
    /// answers are fixed here, not only compared with the predicate's, which reads the store
    /// the same way.
    @Test func textLooksUpAsThePredicateDoes() throws {
        let container = try testContainer(for: Tag.self, inMemory: true)
        let context = ManagedObjectContext(container)
        for name in ["caf\u{E9}", "Cafe", "straße"] {
            Tag(context: context).name = name
        }
        try context.save()
        let reader = ManagedObjectContext(container)
        let expected: [(String, String?)] = [
            ("caf\u{E9}", "caf\u{E9}"), ("cafe\u{301}", nil), ("Cafe", "Cafe"), ("cafe", nil), ("strasse", nil),
            ("straße", "straße"), ("", nil),
        ]
        for (name, found) in expected {
            let predicate = try reader.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == name })).first
            let keyed = try reader.fetch(Tag.self, unique: \.name, name)
            #expect(keyed === predicate, "\(name)")
            #expect(keyed.map { Array($0.name.unicodeScalars) } == found.map { Array($0.unicodeScalars) }, "\(name)")
        }
    }

    /// Dates, optionals and URLs: what the predicate's fetch finds, through its walk where
    /// the store does not compare as Swift does (a date is kept to the millisecond).
    @Test func datesOptionalsAndURLsAnswerAsThePredicateDoes() throws {
        let container = try testContainer(for: Launch.self, Pass.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let day = Date(timeIntervalSince1970: 1_700_000_000.25)
        Launch(context: context).at = day
        let page = URL(string: "https://example.com/a%20b?q=é")!
        let pass = Pass(context: context)
        pass.code = "A"
        pass.page = page
        let unnamed = Pass(context: context)
        unnamed.page = URL(string: "https://example.com/other")!
        try context.save()
        let reader = ManagedObjectContext(container)
        // A date is the stored millisecond or nothing: one between two is no launch's.
        let dates: [(Date, Bool)] = [
            (day, true), (day.addingTimeInterval(0.0004), false), (day.addingTimeInterval(1), false),
        ]
        for (at, isLaunch) in dates {
            let predicate = try reader.fetch(FetchDescriptor<Launch>(predicate: #Predicate { $0.at == at })).first
            let keyed = try reader.fetch(Launch.self, unique: \.at, at)
            #expect(keyed === predicate)
            #expect((keyed?.at == day) == isLaunch, "\(at.timeIntervalSince1970)")
        }
        #expect(try reader.fetch(Pass.self, unique: \.page, page)?.code == "A")
        #expect(try reader.fetch(Pass.self, unique: \.code, "A")?.page == page)
        #expect(try reader.fetch(Pass.self, unique: \.code, "B") == nil)
        // `nil` finds the pass without a code, as `$0.code == nil` does.
        let none: String? = nil
        let predicate = try reader.fetch(FetchDescriptor<Pass>(predicate: #Predicate { $0.code == none })).first
        let keyed = try reader.fetch(Pass.self, unique: \.code, nil)
        #expect(keyed === predicate)
        #expect(keyed?.page == URL(string: "https://example.com/other")!)
    }

    /// A reopened store: the look-up finds what an earlier container saved, by the SELECT the
    /// new store makes for the column.
    @Test func aReopenedStoreIsLookedUpAsItWasSaved() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(4, at: directory.file())
        let reopened = try testContainer(for: Post.self, storeURL: directory.file())
        let context = ManagedObjectContext(reopened)
        #expect(try context.fetch(Post.self, unique: \.id, 4)?.title == "Title 4")
        #expect(try context.fetch(Post.self, unique: \.id, 5) == nil)
    }

    /// The look-up is an entry point: used off its context's executor it traps with the
    /// message every entry point gives.
    @Test func aKeyedLookUpOffItsContextsExecutorTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: Post.self, inMemory: true)
            let background = container.newBackgroundContext()
            _ = try background.fetch(Post.self, unique: \.id, 1)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was used off its executor"))
    }

    /// `#Predicate { $0.userId == 3 }` with nothing else to say is read by the column too
    /// (`Store.fetch(_:whereColumn:equals:…)`): every row that holds the value, in row order,
    /// the same instances as the full fetch; with an unsaved edit, the predicate's fetch.
    @Test func aPredicateEqualityOnAColumnOfManyRowsReadsThemAllInOrder() throws {
        let (container, _) = try savedPosts(30)
        let context = ManagedObjectContext(container)
        let all = try context.fetch(FetchDescriptor<Post>())
        let threes = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.userId == 3 }))
        #expect(threes.map(\.id) == [3, 10, 17, 24])
        #expect(threes.allSatisfy { found in all.contains { $0 === found } })
        #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.userId == 9 })).isEmpty)
        all[0].userId = 3
        let edited = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.userId == 3 }))
        #expect(edited.map(\.id) == [1, 3, 10, 17, 24])
        // Saved, a new context reads the edit by the column.
        try context.save()
        let fresh = ManagedObjectContext(container)
        #expect(
            try fresh.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.userId == 3 })).map(\.id) == [
                1, 3, 10, 17, 24,
            ])
    }

    /// A key path that names no unique attribute of its own is refused with what to do.
    @Test func aKeyPathThatIsNotUniqueIsRefused() throws {
        let (_, context) = try savedPosts(2)
        do {
            _ = try context.fetch(Post.self, unique: \.title, "Title 1")
            Issue.record("a look-up by a title answered")
        } catch let error as StashError {
            #expect(error.code == .unsupportedQuery)
            #expect(error.entity == "Post")
            #expect(error.message.contains("`.unique`"))
            #expect(error.message.contains("predicate"))
        }
        #expect(throws: StashError.self) { try context.fetch(Post.self, unique: \.title.count, 7) }
    }
}
