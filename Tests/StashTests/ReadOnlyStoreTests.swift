import Foundation
import Stash
import TestProcesses
import Testing

/// A store Stash cannot write is opened read-only: fetches work, saves fail naming the file,
/// and nothing changes. Tests run as root, which ignores permission bits, so a read-only
/// file or directory is made with `chattr +i` (immutable, for root too; needs a file system
/// with that attribute, such as ext4).
@Suite(.sqliteOnly("a read-only SQLite file or directory")) struct ReadOnlyStoreTests {
    /// Runs `body` with `url` immutable, then makes it writable again.
    func immutable<Result>(_ url: URL, _ body: () throws -> Result) throws -> Result {
        try chattr("+i", url)
        defer { try? chattr("-i", url) }
        return try body()
    }

    func chattr(_ flag: String, _ url: URL) throws {
        let process = try ChildProcess("/usr/bin/env", ["chattr", flag, url.path])
        process.waitUntilExit()
        #expect(
            process.terminationStatus == 0, "chattr \(flag) \(url.path) failed: the file system needs the i attribute")
    }

    /// Fetches work; a save fails with `readOnlyStore` naming the file and why; the context
    /// keeps its changes; the store file is as it was.
    func checkReadOnly(_ directory: TemporaryDirectory, reason: String, readOnly: Bool = false) throws {
        let before = try Data(contentsOf: directory.file())
        let container = try testContainer(for: Post.self, storeURL: directory.file(), readOnly: readOnly)
        let context = ManagedObjectContext(container)
        #expect(try context.fetch(FetchDescriptor<Post>()).map(\.title) == ["Title 1", "Title 2", "Title 3"])
        let post = Post(context: context)
        post.id = 4
        post.userId = 0
        post.title = "new"
        post.body = "b"
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .readOnlyStore)
        #expect(error?.entity == "Post")
        #expect(error?.message.contains("the store \(directory.file().path) is read-only (\(reason))") == true)
        #expect(context.hasChanges)
        #expect(try Data(contentsOf: directory.file()) == before)
    }

    @Test func aStoreInADirectoryThatCannotBeWrittenIsReadOnly() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        try immutable(directory.url) {
            try checkReadOnly(directory, reason: "its directory cannot be written to")
        }
    }

    @Test func aFileThatCannotBeWrittenIsReadOnly() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        try immutable(directory.file()) {
            try checkReadOnly(directory, reason: "the file is read-only")
        }
    }

    @Test func readOnlyAsAskedOnAWritableStore() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        try checkReadOnly(directory, reason: "it was opened with readOnly: true", readOnly: true)
        // Writable again when opened without it.
        let context = ManagedObjectContext(try testContainer(for: Post.self, storeURL: directory.file()))
        _ = try recipeDecoder(context).decode(Post.self, from: postsJSON(count: 1, firstID: 4).dropFirst().dropLast())
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "4\n")
    }

    @Test func aReadOnlyStoreThatNeedsAMigrationSaysSo() throws {
        let directory = try TemporaryDirectory()
        _ = try savedPosts(3, at: directory.file())
        try immutable(directory.url) {
            let error = #expect(throws: StashError.self) {
                _ = try testContainer(for: Post.self, Label.self, storeURL: directory.file())
            }
            #expect(error?.code == .readOnlyStore)
            #expect(error?.entity == "Label")
            #expect(error?.message.contains("needs a migration: make the table Label") == true)
        }
    }

    @Test func anEarlierStashStoreReadsWithoutBeingUpgraded() throws {
        let directory = try TemporaryDirectory()
        _ = try sqliteShellWriting(directory.file(), RowKeyTests.storeOfAnEarlierStash)
        let before = try Data(contentsOf: directory.file())
        try immutable(directory.file()) {
            let context = ManagedObjectContext(try testContainer(for: Post.self, storeURL: directory.file()))
            #expect(try context.fetch(FetchDescriptor<Post>()).map(\.id) == [1, 2, 7])
        }
        #expect(try Data(contentsOf: directory.file()) == before)
    }
}
