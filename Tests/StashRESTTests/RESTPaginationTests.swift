import Foundation
import Stash
import StashREST
import Testing

/// Pages as one import session, and conditional GET.
@Suite struct RESTPaginationTests {
    func fetch(
        _ path: String, _ change: (inout FetchOptions) -> Void, server: TestServer, store: TemporaryStore
    ) async throws -> FetchResult<[Item]> {
        var options = FetchOptions()
        change(&options)
        let context = ManagedObjectContext(try store.container())
        return try await testClient(server).fetchReporting([Item].self, from: path, into: context, options: options)
    }

    @Test func linkHeadersInOneTransaction() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let changes = container.changes
        let context = ManagedObjectContext(container)
        let result = try await testClient(server).fetchReporting(
            [Item].self, from: "items?count=10&per_page=3", into: context)
        #expect(result.value.map(\.id) == Array(1...10))
        #expect(result.report.pages == 4)
        #expect(result.report.inserted == 10)
        #expect(try await server.requests().map(\.path).last == "/items?count=10&start=1&per_page=3&page=4")
        // One save for all four pages.
        var saves = 0
        for await change in changes {
            saves += 1
            #expect(change.inserted.count == 10)
            break
        }
        #expect(saves == 1)
    }

    @Test func pageByPageSavesEachPage() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let result = try await fetch("items?count=7&per_page=3", { $0.saving = .perPage }, server: server, store: store)
        #expect(result.value.map(\.id) == Array(1...7))
        #expect(result.report.inserted == 7)
        #expect(result.report.pages == 3)
        #expect(try store.count("Item") == 7)
    }

    @Test func aNextURLInTheBodyOrACursor() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let cursor = try await fetch(
            "items?count=8&cursor=",
            {
                $0.itemsKey = "data"
                $0.pagination = .cursor(key: "cursor", parameter: "cursor")
            }, server: server, store: store)
        #expect(cursor.value.map(\.id) == Array(1...8))
        #expect(cursor.report.pages == 3)
    }

    /// Page by page, a later page naming an earlier page's object with the same values
    /// leaves its row unchanged (the earlier pages' objects stay in the import's context
    /// until the end).
    @Test func pageByPageAnObjectOnTwoPagesIsWrittenOnce() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        // A row stored before: the import's context learns the stored ids at its start.
        let existing = ManagedObjectContext(try store.container())
        let earlier = Item(context: existing)
        earlier.id = 99
        earlier.title = "stored before"
        try existing.save()
        var options = nextURLOptions()
        options.saving = .perPage
        let second =
            server.base.absoluteString
            + bodyPath(#"{"data": [{"id": 2, "title": "two"}, {"id": 3, "title": "three"}]}"#)
        let result = try await testClient(server).fetchReporting(
            [Item].self,
            from: bodyPath(#"{"data": [{"id": 1, "title": "one"}, {"id": 2, "title": "two"}], "next": "\#(second)"}"#),
            into: ManagedObjectContext(try store.container()), options: options)
        #expect(result.report.inserted == 3)
        #expect(result.report.updated == 0 && result.report.unchanged == 1)
        #expect(Set(result.value.map(\.id)) == [1, 2, 3])
        #expect(try store.count("Item") == 4)
    }

    @Test func pageNumbersAndOffsets() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        // `page=1, 2, …` until a page is empty (the Link header is not followed).
        let pages = try await fetch(
            "items?count=7&per_page=3", { $0.pagination = .page() }, server: server, store: store)
        #expect(pages.value.map(\.id) == Array(1...7))
        #expect(pages.report.pages == 4)
        #expect(try await server.requests().map(\.path).first == "/items?count=7&per_page=3&page=1")
    }

    @Test func conditionalGetAnswers304WithTheLastObjects() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let first = try await fetch("items?count=3&etag=1", { _ in }, server: server, store: store)
        #expect(first.report.inserted == 3)
        #expect(!first.report.notModified)
        #expect(try store.sqlite(#"SELECT count(*) FROM "_stash_http_validators""#) == "1")
        let second = try await fetch("items?count=3&etag=1", { _ in }, server: server, store: store)
        #expect(second.report.notModified)
        #expect(second.report.inserted == 0)
        #expect(second.value.map(\.id) == [1, 2, 3])
        let requests = try await server.requests()
        #expect(requests[0].headers["if-none-match"] == nil)
        #expect(requests[1].headers["if-none-match"] == #""items-1-3""#)
        #expect(requests[1].headers["if-modified-since"] == "Wed, 21 Oct 2026 07:28:00 GMT")
        // Turned off: a full answer.
        let third = try await fetch("items?count=3&etag=1", { $0.conditional = false }, server: server, store: store)
        #expect(!third.report.notModified)
        #expect(third.report.unchanged == 3)
    }

    /// One object: unchanged, the second answer is a 304. A local edit of a value the answer
    /// set (its title) is one a 200 would put back, so the 304 cannot stand for it: the
    /// object is asked again in full and gets the server's title.
    @Test func conditionalGetOfOneObject() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let container = context.container
        let api = testClient(server)
        let path = "items?count=1&start=7&etag=1&single=1"
        let first = try await api.fetch(Item.self, from: path, into: context)
        #expect(first.id == 7)
        let unchanged = try await api.fetchReporting(Item.self, from: path, into: ManagedObjectContext(container))
        #expect(unchanged.report.notModified && unchanged.value.title == "Item 7")
        first.title = "edited here"
        try context.save()
        let second = try await api.fetchReporting(Item.self, from: path, into: ManagedObjectContext(container))
        #expect(!second.report.notModified && second.report.updated == 1)
        #expect(second.value.id == 7 && second.value.title == "Item 7")
        let requests = try await server.requests()
        #expect(requests.map { $0.headers["if-none-match"] } == [nil, #""items-7-1""#, #""items-7-1""#, nil])
        // Its row deleted: the 304 cannot stand for it, and the object comes back in full.
        context.delete(first)
        try context.save()
        let third = try await api.fetch(Item.self, from: path, into: ManagedObjectContext(container))
        #expect(third.id == 7 && third.title == "Item 7")
        #expect(try await server.requests().count == 6)
        #expect(try store.count("Item") == 1)
    }

    /// A sync answered with a 304 still deletes the objects of its scope that the
    /// unchanged answer does not hold.
    @Test func aSyncAnsweredWith304DeletesWhatItDoesNotHold() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let api = testClient(server)
        _ = try await api.fetchReporting(
            [Item].self, from: "items?count=3&etag=1", into: ManagedObjectContext(container), deletingMissing: .all)
        let local = ManagedObjectContext(container)
        let extra = Item(context: local)
        extra.id = 99
        extra.title = "only here"
        try local.save()
        let second = try await api.fetchReporting(
            [Item].self, from: "items?count=3&etag=1", into: ManagedObjectContext(container), deletingMissing: .all)
        #expect(second.report.notModified)
        #expect(second.report.deleted == 1)
        #expect(second.value.map(\.id) == [1, 2, 3])
        #expect(try store.count("Item") == 3)
    }

    /// A 304 answers with the rows of the last full answer; when some were deleted since,
    /// it cannot, so the URL is asked again without validators and the rows come back.
    @Test func a304AfterALocalDeleteAsksAgainInFull() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let first = try await fetch("items?count=3&etag=1", { _ in }, server: server, store: store)
        #expect(first.value.map(\.id) == [1, 2, 3])
        let context = ManagedObjectContext(try store.container())
        context.delete(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 2 }))[0])
        try context.save()
        let second = try await fetch("items?count=3&etag=1", { _ in }, server: server, store: store)
        #expect(!second.report.notModified)
        #expect(second.report.inserted == 1 && second.report.unchanged == 2)
        #expect(second.report.pages == 1)
        #expect(second.value.map(\.id) == [1, 2, 3])
        let requests = try await server.requests()
        #expect(requests.map { $0.headers["if-none-match"] } == [nil, #""items-1-3""#, nil])
        #expect(try store.count("Item") == 3)
        // Whole again: the next answer is a 304.
        let third = try await fetch("items?count=3&etag=1", { _ in }, server: server, store: store)
        #expect(third.report.notModified && third.value.map(\.id) == [1, 2, 3])
    }

    @Test(.enabled(if: TestServer.fixturesAvailable, "needs ../shared/fixtures (GitHub's recorded exchanges)"))
    func githubsRecordedPaginationOfIssues() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let result = try await testClient(server).fetchReporting(
            [Issue].self, from: "scenario/paginate-issues/repos/octokit-fixture-org/paginate-issues/issues?per_page=3",
            into: context)
        #expect(result.report.pages == 5)
        #expect(result.value.count == 13)
        #expect(Set(result.value.map(\.number)).count == 13)
        #expect(result.report.inserted == 13)
        // The same user in every issue: one row.
        #expect(try store.count("GitHubUser") == Set(result.value.compactMap { $0.user?.id }).count)
        #expect(result.value.allSatisfy { $0.user?.login.isEmpty == false })

        let search = try await testClient(server).fetchReporting(
            [Issue].self,
            from: "scenario/search-issues/search/issues?q=sesame%20repo%3Aoctokit-fixture-org%2Fsearch-issues",
            into: context,
            options: {
                var options = FetchOptions()
                options.itemsKey = "items"
                return options
            }())
        #expect(search.value.count == 2)
    }
}
