import Foundation
import Testing

@testable import Stash

/// The world changing under an app (another process deleting rows, dropping a table) is no
/// programming error: property reads answer what the context knows and never trap, and the
/// failure comes out of the next throwing call.
@Suite(.bothStores) struct WorldChangingTests {
    /// An object decoded for a stored row loads the rest of the row when first read; the
    /// row was deleted by another process in between.
    @Test func anAttributeOfARowDeletedElsewhereReadsEmpty() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let (container, _) = try savedPosts(5, at: file)
        let context = ManagedObjectContext(container)
        let post = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 3}"#))
        #expect(!post.isRowDeleted)
        _ = try sqliteShellWriting(file, "DELETE FROM Post WHERE id = 3")
        #expect(post.title == "")
        #expect(post.userId == 0)
        #expect(post.isRowDeleted)
        #expect(post.id == 3)
        // Another object of the same context, whose row is still there, loads as usual.
        let other = try recipeDecoder(context).decode(Post.self, from: json(#"{"id": 4}"#))
        #expect(other.title == "Title 4")
        #expect(!other.isRowDeleted)
    }

    /// A relationship that cannot be read (another process renamed its table) reads empty,
    /// and the next throwing call says what failed.
    @Test func aFailedRelationshipLoadSurfacesAtTheNextThrowingCall() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try graphContainer(at: file)
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 10 })).first)
        _ = try sqliteShellWriting(file, "ALTER TABLE Review RENAME TO Gone")
        #expect(book.reviews.isEmpty)
        let error = #expect(throws: StashError.self) { try context.fetch(FetchDescriptor<Book>()) }
        #expect(error?.code == .loadFailed)
        #expect(error?.entity == "Book")
        #expect(error?.attribute == "reviews")
        #expect(error?.message.contains("Review") == true)
        // Thrown once: the context goes on.
        #expect(try context.fetch(FetchDescriptor<Book>()).count == 3)
        _ = try sqliteShellWriting(file, "ALTER TABLE Gone RENAME TO Review")
    }

    /// A failed read during a save's own work (the delete rules read what points at a
    /// deleted object) fails that save, and nothing is written.
    @Test func aFailedReadInsideASaveFailsTheSave() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try graphContainer(at: file)
        try seedLibrary(container)
        let context = ManagedObjectContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 20 })).first)
        _ = try sqliteShellWriting(file, "ALTER TABLE Review RENAME TO Gone")
        context.delete(book)
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .loadFailed)
        _ = try sqliteShellWriting(file, "ALTER TABLE Gone RENAME TO Review")
        #expect(try sqliteShell(file, "SELECT count(*) FROM Book") == "3\n")
    }
}
