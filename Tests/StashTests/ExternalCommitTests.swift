import Foundation
import Stash
import Testing

/// A long-lived context and commits it did not make: another process (the `sqlite3`
/// shell), or another container on the same file. A fetch answers what the store holds
/// now, into the objects the context already has, keeping the context's own changes.
@Suite(.bothStores) struct ExternalCommitTests {
    @Test func aFetchAfterAnotherProcessCommitsAnswersTheRowAsItIsNow() throws {
        let directory = try TemporaryDirectory()
        let (_, context) = try savedPosts(3, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(posts[0].title == "Title 1")
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id = 1")
        let again = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(again[0] === posts[0])
        #expect(again.map(\.title) == ["from the shell", "Title 2", "Title 3"])
        #expect(!context.hasChanges)
        // A predicate on the new value finds the object, holding it.
        let found = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.title == "from the shell" }))
        #expect(found.count == 1 && found[0] === posts[0])
    }

    /// The context's unsaved change stays (the row's other columns come in); the value it
    /// last saw becomes the row's, so a rollback shows the other process's value.
    @Test func unsavedChangesStayAndARollbackShowsTheNewRow() throws {
        let directory = try TemporaryDirectory()
        let (_, context) = try savedPosts(1, at: directory.file())
        let post = try context.fetch(FetchDescriptor<Post>())[0]
        post.read = true
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'shell', read = 0 WHERE id = 1")
        _ = try context.fetch(FetchDescriptor<Post>())  // the changed object is judged in memory
        let others = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 1 }))
        #expect(others[0] === post && post.read)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT title, read FROM Post") == "shell|1\n")
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET body = 'shell body' WHERE id = 1")
        post.title = "mine"
        _ = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.body == "shell body" }))
        context.rollback()
        #expect(post.title == "shell")
    }

    /// A to-many list read before another process added to it is read again.
    @Test func aListReadBeforeAnotherProcessAddedToItIsReadAgain() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try graphContainer(at: directory.file()))
        _ = try context.decode(
            [Book].self, from: json(#"[{"id": 1, "title": "A", "writer": {"id": 7, "name": "Ursula"}}]"#))
        try context.save()
        let writer = try context.fetch(FetchDescriptor<Writer>())[0]
        #expect(writer.books.map(\.id) == [1])
        let other = ManagedObjectContext(try graphContainer(at: directory.file()))
        _ = try other.decode([Book].self, from: json(#"[{"id": 2, "title": "B", "writer": 7}]"#))
        try other.save()
        _ = try context.fetch(FetchDescriptor<Writer>())
        #expect(writer.books.map(\.id).sorted() == [1, 2])
    }

    /// Another container on the same file is another writer too; this container's own
    /// saves reach its contexts by merging, as before.
    @Test func anotherContainerOnTheFileCountsAndOwnSavesMerge() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let post = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 2 }))[0]
        let elsewhere = ManagedObjectContext(try testContainer(for: Post.self, storeURL: directory.file()))
        try elsewhere.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 2 }))[0].summary = "elsewhere"
        try elsewhere.save()
        _ = try context.fetch(FetchDescriptor<Post>())
        #expect(post.summary == "elsewhere")
        let sibling = ManagedObjectContext(container)
        try sibling.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.id == 2 }))[0].summary = "sibling"
        try sibling.save()
        #expect(context.hasChanges == false)  // a call into the context: it merges the sibling's save
        #expect(post.summary == "sibling")
    }
}
