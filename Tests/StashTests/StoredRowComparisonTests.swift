import Foundation
import Testing

@testable import Stash

/// A save compares each updated row with what the store holds, inside its transaction
/// (`StoredRowComparison`): every row read must be matched to its own update, in whatever
/// order the updates were planned and the store hands the rows back.
@Suite(.bothStores) struct StoredRowComparisonTests {
    /// Eight posts in a file store; every one edited, the newest first.
    func editedNewestFirst(
        _ policy: MergePolicy
    ) throws -> (TemporaryDirectory, ManagedObjectContext, [Post]) {
        let directory = try TemporaryDirectory()
        let (container, _) = try savedPosts(8, at: directory.file())
        let context = ManagedObjectContext(container)
        context.mergePolicy = policy
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id, order: .reverse)]))
        try #require(posts.map(\.id) == Array((1...8).reversed()))
        return (directory, context, posts)
    }

    @Test func eachRowIsComparedWithItsOwnUpdateWhateverTheOrder() throws {
        let (directory, context, posts) = try editedNewestFirst(.storedWins)
        // Another process changes two titles after the posts were loaded.
        _ = try sqliteShellWriting(directory.file(), "UPDATE Post SET title = 'from the shell' WHERE id IN (2, 7)")
        for post in posts {
            post.title = "mine \(post.id)"
            post.read = true
        }
        try context.save()
        let expected = (1...8).map { id in
            "\(id)|\(id == 2 || id == 7 ? "from the shell" : "mine \(id)")|1"
        }
        #expect(
            try sqliteShell(directory.file(), "SELECT id, title, read FROM Post ORDER BY id")
                == expected.joined(separator: "\n") + "\n")
        #expect(posts.first { $0.id == 7 }?.title == "from the shell")
        #expect(posts.first { $0.id == 6 }?.title == "mine 6")
    }

    @Test func theRowDeletedAmongManyIsNamedAndNothingIsSaved() throws {
        let (directory, context, posts) = try editedNewestFirst(.storedWins)
        let gone = try #require(posts.first { $0.id == 5 }?.rowID)
        _ = try sqliteShellWriting(directory.file(), "DELETE FROM Post WHERE id = 5")
        for post in posts { post.title = "mine \(post.id)" }
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .rowMissing)
        #expect(error?.message.contains("row \(gone) ") == true)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post WHERE title LIKE 'mine%'") == "0\n")
        #expect(context.hasChanges)
    }
}

/// The comparison alone, with updates planned out of row id order and a row named twice.
@Suite struct StoredRowComparisonOrderTests {
    @Test func updatesOutOfOrderAreMatchedToTheirRowsAndAMissingOneIsNamed() throws {
        let schema = try EntityRegistry.shared.entity(for: Post.self).schema
        let title = try #require(schema.columns.firstIndex { $0.name == "title" })
        var changes = EntityChanges(entity: schema)
        var only = AttributeSet()
        only.insert(title)
        // Rows 9, 2, 5 and 2 again: the last update of a row is the one compared.
        for rowID: Int64 in [9, 2, 5, 2] { changes.updates.append(rowID: rowID, columns: only, checked: only) }
        let written = ["nine", "two, first", "five", "two"]
        changes.updates.value = { row, _ in .text(written[row]) }
        var comparison = StoredRowComparison(changes, expected: nil, columnSets: changes.updates.columnSets)
        #expect(comparison.rowIDs == [2, 5, 9])
        #expect(comparison.read == [title])

        var columnSets = changes.updates.columnSets
        var result = EntitySaveResult()
        // The store hands row 9 back first, then row 2; row 5 is gone.
        let stored: [Int64: StoredValue] = [9: .text("nine"), 2: .text("two, first")]
        for rowID: Int64 in [9, 2] {
            try comparison.compare(
                rowID: rowID, { _ in stored[rowID]! }, holds: { _, value in stored[rowID]! == value }, &columnSets,
                &result)
        }
        // Row 9 already holds what is written; row 2's last update writes "two", which it does not hold.
        #expect(result.unchangedColumns[9] == only)
        #expect(result.unchangedColumns[2] == nil)
        #expect(columnSets.map { $0.isEmpty } == [true, false, false, false])
        let error = #expect(throws: StashError.self) { try comparison.finish() }
        #expect(error?.code == .rowMissing)
        #expect(error?.message.contains("row 5 ") == true)
    }
}
