import Foundation
import Testing

@testable import Stash

/// A save's INSERTs are `INSERT OR ROLLBACK`: a row the file refuses ends the whole
/// transaction at once, with no statement journal kept to undo that statement alone. What
/// the save wrote before it (deletes, updates, earlier batches) must be undone all the same,
/// and the context must be able to save again.
@Suite struct InsertFailureTests {
    @Test func aRowTheFileRefusesUndoesEveryWriteOfTheSave() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(3, at: directory.file())
        // Another program adds a rule the model does not know: no two posts share a title.
        _ = try sqliteShellWriting(directory.file(), #"CREATE UNIQUE INDEX "title_once" ON "Post" ("title")"#)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        context.delete(posts[0])
        posts[1].title = "edited"
        // Enough new posts for several batches, one of them taking post 3's title in the second.
        for number in 0..<150 { newPost(100 + number, number == 90 ? "Title 3" : "new \(number)", in: context) }
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.message.contains("UNIQUE") == true)
        #expect(
            try sqliteShell(directory.file(), "SELECT id, title FROM Post ORDER BY id")
                == "1|Title 1\n2|Title 2\n3|Title 3\n")
        #expect(try sqliteShell(directory.file(), "PRAGMA integrity_check") == "ok\n")
        #expect(context.hasChanges)

        // Without the rule, the same context saves what it has.
        _ = try sqliteShellWriting(directory.file(), #"DROP INDEX "title_once""#)
        try context.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Post>()) == 152)
        #expect(try sqliteShell(directory.file(), "SELECT title FROM Post WHERE id = 2") == "edited\n")
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post WHERE id = 1") == "0\n")
    }

    /// The writer is left with no transaction open, and the next save of another context on
    /// the same container goes through.
    @Test func anotherContextSavesAfterTheRefusal() throws {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(2, at: directory.file())
        _ = try sqliteShellWriting(directory.file(), #"CREATE UNIQUE INDEX "title_once" ON "Post" ("title")"#)
        let refused = ManagedObjectContext(container)
        newPost(9, "Title 1", in: refused)
        #expect(throws: StashError.self) { try refused.save() }
        let other = ManagedObjectContext(container)
        newPost(10, "a title of its own", in: other)
        try other.save()
        #expect(try sqliteShell(directory.file(), "SELECT id FROM Post ORDER BY id") == "1\n2\n10\n")
    }

    private func newPost(_ id: Int, _ title: String, in context: ManagedObjectContext) {
        let post = Post(context: context)
        post.id = id
        post.userId = 1
        post.body = "body"
        post.title = title
    }
}
