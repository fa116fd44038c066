import Foundation
import Testing

@testable import Stash

/// Stash's own records written right after a save (StashREST's validators,
/// `writeBookkeeping`) are the container's own commit, as the save is: the next fetch does not
/// take them for another process's and read back every object it meets. A commit by another
/// process still counts, before the record or after it.
@Suite(.bothStores) struct BookkeepingCommitTests {
    private static let table = BookkeepingTable("test_records")

    @Test func aRecordAfterASaveIsNotAnotherProcesssCommit() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(3, at: directory.file())
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        posts[0].title = "mine"
        try context.save()
        let seen = try container.externalCommitCount()
        try context.writeBookkeeping(["page 1": "etag 1"], in: Self.table)
        #expect(try container.externalCommitCount() == seen)
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM "_stash_test_records" ORDER BY "key""#)
                == "etag 1\n")
        // Another process's commit after the record counts, and the next fetch reads it.
        _ = try sqliteShellWriting(directory.file(), #"UPDATE "Post" SET "title" = 'shell' WHERE "id" = 2"#)
        let again = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(try container.externalCommitCount() == seen + 1)
        #expect(again.map(\.title) == ["mine", "shell", "Title 3"])
    }

    /// Another context of the container saves between this context's save and its record:
    /// the record vouches for nothing this context read, but both commits are the
    /// container's own, and nothing is read back.
    @Test func aSaveOfAnotherContextBetweenTheSaveAndTheRecordIsOwnToo() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let other = ManagedObjectContext(container)
        let posts = try other.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        let seen = try container.externalCommitCount()
        posts[1].title = "the other context's"
        try other.save()
        #expect(try context.writeBookkeeping(["page 1": "etag 1"], in: Self.table) == nil)
        #expect(try container.externalCommitCount() == seen)
        #expect(
            try sqliteShell(directory.file(), #"SELECT "value" FROM "_stash_test_records" ORDER BY "key""#)
                == "etag 1\n")
    }

    /// Another process commits between the save and the record: the record vouches for
    /// nothing, and the next look counts that commit.
    @Test func aCommitBetweenTheSaveAndTheRecordStillCounts() throws {
        let directory = try TemporaryDirectory()
        let (container, context) = try savedPosts(2, at: directory.file())
        let seen = try container.externalCommitCount()
        _ = try sqliteShellWriting(directory.file(), #"UPDATE "Post" SET "title" = 'shell' WHERE "id" = 1"#)
        #expect(try context.writeBookkeeping(["page 1": "etag 1"], in: Self.table) == nil)
        #expect(try container.externalCommitCount() == seen + 1)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        #expect(posts.map(\.title) == ["shell", "Title 2"])
    }
}
