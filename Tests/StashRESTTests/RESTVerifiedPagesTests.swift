import Foundation
import Stash
import Testing

@testable import StashREST

/// The same answer again (or a 304) stands for a page only if its rows still hold what its
/// record says. That is read from the rows only when something was committed to the store
/// since they were last found so: by this container, by another process, by the `sqlite3`
/// shell. Each test counts the reads (`PersistentContainer.pageDigestReads`) and checks that
/// what stands, or is decoded again, is what the rows call for.
@Suite struct RESTVerifiedPagesTests {
    private let path = "paged/fp?pages=3&per_page=2&plain=1"

    /// Nothing written since the import: each check of the three pages is answered without a
    /// read, again and again.
    @Test func nothingWrittenNothingRead() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let reads = context.container.pageDigestReads.load(ordering: .relaxed)
        #expect(reads == 1, "the import reads its rows once, for its records")
        let files = try store.sqlite(#"SELECT count(*) FROM "_stash_http_validators""#)
        #expect(files == "3")
        for _ in 0..<2 {
            let again = try await api.fetchReporting([Item].self, from: path, into: context)
            #expect(again.report.notModified && again.report.unchanged == 6)
            #expect(again.value.map(\.title) == (1...6).map { "Item \($0)" })
        }
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) == reads)
    }

    /// A title changed by hand in the `sqlite3` shell: the token moved, so the rows are read,
    /// the page does not stand, and its body is decoded again, the server's title put back.
    @Test func aRowChangedByAnotherProcessIsRead() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let reads = context.container.pageDigestReads.load(ordering: .relaxed)
        try store.write(#"UPDATE "Item" SET "title" = 'by hand' WHERE "id" = 3"#)
        let refreshed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!refreshed.report.notModified)
        #expect(refreshed.report.updated == 1 && refreshed.report.unchanged == 5)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item" WHERE "id" = 3"#) == "Item 3")
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) > reads)

        // The decoded page's new record was written with nothing between: the next check
        // reads only the two pages that stood, found so before this call's save.
        let settled = context.container.pageDigestReads.load(ordering: .relaxed)
        let after = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(after.report.notModified)
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) == settled + 2)
        let last = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(last.report.notModified)
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) == settled + 2)
    }

    /// A row deleted by hand: read, and put back by the decode.
    @Test func aRowDeletedByAnotherProcessComesBack() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        try store.write(#"DELETE FROM "Item" WHERE "id" = 5"#)
        let refreshed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!refreshed.report.notModified && refreshed.report.inserted == 1)
        #expect(refreshed.value.map(\.id) == Array(1...6))
        #expect(try store.count("Item") == 6)
    }

    /// Writes that leave the pages' rows as they were (a title changed and put back, in two
    /// commits): the rows are read once, the pages stand, and the check after that reads
    /// nothing again. (A write of the same value is no commit at all: SQLite writes nothing.)
    @Test func aWriteThatChangesNothingIsReadOnce() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let reads = context.container.pageDigestReads.load(ordering: .relaxed)
        try store.write(
            #"UPDATE "Item" SET "title" = 'moved' WHERE "id" = 2; UPDATE "Item" SET "title" = 'Item 2' WHERE "id" = 2"#)
        let first = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(first.report.notModified && first.report.unchanged == 6)
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) == reads + 3, "one read a page")
        let second = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(second.report.notModified)
        #expect(context.container.pageDigestReads.load(ordering: .relaxed) == reads + 3)
    }

    /// A title saved over the server's by another context of the container (its save count
    /// moves), or by another container on the same file, as another process's would be (the
    /// store's token moves): the page it is on does not stand, as without the shortcut.
    @Test(arguments: [false, true])
    func aSaveElsewhereIsRead(byAnotherContainer: Bool) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let elsewhere = ManagedObjectContext(byAnotherContainer ? try store.container() : context.container)
        let fourth = try elsewhere.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 4 }))[0]
        fourth.title = "edited elsewhere"
        try elsewhere.save()
        let refreshed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!refreshed.report.notModified && refreshed.report.updated == 1)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item" WHERE "id" = 4"#) == "Item 4")
    }

    /// What a container found is its own: a store reopened (another launch of the app) reads
    /// the pages once, then no more.
    @Test func aReopenedStoreReadsOnceThenNot() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let reopened = ManagedObjectContext(try store.container())
        for reads in [3, 3] {
            let again = try await api.fetchReporting([Item].self, from: path, into: reopened)
            #expect(again.report.notModified && again.value.map(\.id) == Array(1...6))
            #expect(reopened.container.pageDigestReads.load(ordering: .relaxed) == reads)
        }
    }

    /// A store in memory has no token that its own commits move: every check reads.
    @Test func aStoreInMemoryAlwaysReads() async throws {
        let server = try await TestServer.start()
        let container = try PersistentContainer(for: Item.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let reads = container.pageDigestReads.load(ordering: .relaxed)
        let again = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(again.report.notModified)
        #expect(container.pageDigestReads.load(ordering: .relaxed) == reads + 3)
    }
}
