import Foundation
import Stash
import StashREST
import Testing

/// Conditional GET as Stash keeps it: validators in Stash's own table without a model, per
/// page, and a 304 taken only for the same objects.
@Suite struct RESTConditionalTests {
    /// The store keeps validators without `HTTPValidator` among the models, in a table whose
    /// name says it is Stash's; `keepsValidators = false` sends and keeps none.
    @Test func validatorsAreKeptWithoutAModel() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        #expect(!context.container.entityNames.contains("HTTPValidator"))
        let api = testClient(server)
        let first = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(!first.report.notModified && first.report.inserted == 3)
        let second = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(second.report.notModified && second.report.unchanged == 3 && second.report.inserted == 0)
        #expect(second.value.map(\.id) == [1, 2, 3])
        #expect(try await server.requests().map { $0.headers["if-none-match"] } == [nil, #""items-1-3""#])
        let tables = try store.sqlite("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(
            tables.split(separator: "\n") == [
                "GitHubUser", "HandNote", "Issue", "Item", "Note", "PacedNote", "_stash_http_validators",
                "_stash_schema",
                "sqlite_sequence",
            ])
        #expect(
            try store.sqlite(#"SELECT "key" FROM "_stash_http_validators""#) == server.base.absoluteString
                + "items?count=3&etag=1")
        #expect(
            try store.sqlite(#"SELECT json_extract("value", '$.etag') FROM "_stash_http_validators""#)
                == #""items-1-3""#)

        // An API that sends no validators: the answer's fingerprint is kept (`BodyFingerprint`).
        let (otherServer, other, otherContext) = try await serverAndEmptyStore()
        _ = try await testClient(otherServer).fetch([Item].self, from: "items?count=3", into: otherContext)
        let fingerprints = #"""
            SELECT count(*) FROM "_stash_http_validators"
            WHERE json_extract("value", '$.body') IS NOT NULL AND json_extract("value", '$.etag') IS NULL
            """#
        #expect(try other.sqlite(fingerprints) == "1")
        // Turned off: nothing sent, nothing kept.
        let off = testClient(otherServer) { $0.keepsValidators = false }
        _ = try await off.fetch([Item].self, from: "items?count=3&etag=1", into: otherContext)
        let again = try await off.fetchReporting([Item].self, from: "items?count=3&etag=1", into: otherContext)
        #expect(!again.report.notModified && again.report.unchanged == 3)
        #expect(try await otherServer.requests().map { $0.headers["if-none-match"] } == [nil, nil, nil])
        #expect(try other.sqlite(#"SELECT count(*) FROM "_stash_http_validators""#) == "1")
    }

    /// A 304 on page 1 stood for every page, and an edit on page 2 was never seen. Each page
    /// has its validators and the next URL its last full answer gave: an unchanged page
    /// costs a 304, a changed one comes in full.
    @Test func anEditOnALaterPageIsSeen() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let path = "paged/a?pages=3&per_page=2"
        let first = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(first.report.pages == 3 && first.report.inserted == 6 && !first.report.notModified)
        let fullBytes = first.report.bytes

        let unchanged = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(unchanged.report.notModified)
        #expect(unchanged.report.pages == 3 && unchanged.report.bytes == 0 && unchanged.report.unchanged == 6)
        #expect(unchanged.value.map(\.id) == Array(1...6))

        try await server.get("paged/a/edit?page=2&title=changed")
        let edited = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!edited.report.notModified)
        #expect(edited.report.pages == 3 && edited.report.updated == 2 && edited.report.unchanged == 4)
        #expect(edited.value.map(\.id) == Array(1...6))
        #expect(edited.value.map(\.title) == ["Item 1", "Item 2", "changed 3", "changed 4", "Item 5", "Item 6"])
        // Only page 2 came in full: about a third of the bytes.
        #expect(edited.report.bytes > 0 && edited.report.bytes * 2 < fullBytes)
        let asked = try await server.requests().filter { $0.path.hasPrefix("/paged/a?") }
        #expect(asked.count == 9)
        #expect(asked.suffix(3).map { $0.headers["if-none-match"] } == [#""page-1-""#, #""page-2-""#, #""page-3-""#])
        let titles = try ManagedObjectContext(try store.container()).fetch(FetchDescriptor<Item>()).map(\.title)
        #expect(titles.sorted() == ["Item 1", "Item 2", "Item 5", "Item 6", "changed 3", "changed 4"])
        // Page by page and as a sync: the rows of the pages a 304 answered are kept.
        let local = Item(context: context)
        local.id = 99
        local.title = "only here"
        try context.save()
        var options = FetchOptions()
        options.saving = .perPage
        try await server.get("paged/a/edit?page=3&title=again")
        let synced = try await api.fetchReporting(
            [Item].self, from: path, into: context, options: options, deletingMissing: .all)
        #expect(synced.report.deleted == 1 && synced.report.updated == 2 && synced.report.unchanged == 4)
        #expect(synced.value.map(\.id) == Array(1...6))
        #expect(try store.count("Item") == 6)
    }

    /// Row ids alone do not say a row is the object a 304 stands for: deleted and its id
    /// taken by a new row (SQLite reuses the highest id without AUTOINCREMENT), or its unique
    /// value moved. Either way the URL is asked again in full.
    @Test func a304StandsOnlyForTheSameObjects() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let path = "items?count=3&etag=1"
        _ = try await api.fetch([Item].self, from: path, into: context)
        let third = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 3 }))[0]
        context.delete(third)
        try context.save()
        let newcomer = Item(context: context)
        newcomer.id = 99
        newcomer.title = "took the row id, maybe"
        try context.save()
        let afterReuse = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!afterReuse.report.notModified)
        #expect(afterReuse.value.map(\.id) == [1, 2, 3])
        #expect(afterReuse.report.inserted == 1 && afterReuse.report.unchanged == 2)

        let second = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 2 }))[0]
        second.id = 77
        try context.save()
        let afterMove = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!afterMove.report.notModified)
        #expect(afterMove.value.map(\.id) == [1, 2, 3])
        #expect(
            try await server.requests().map { $0.headers["if-none-match"] } == [
                nil, #""items-1-3""#, nil, #""items-1-3""#, nil,
            ])
        let ids = try ManagedObjectContext(try store.container()).fetch(FetchDescriptor<Item>()).map(\.id)
        #expect(ids.sorted() == [1, 2, 3, 77, 99])
        // Whole again: a 304.
        let whole = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(whole.report.notModified && whole.value.map(\.id) == [1, 2, 3])
    }

    /// A store whose models still list `HTTPValidator` (from before Stash kept validators
    /// itself) opens and works: its table is left as it was, unread, and the first fetch of
    /// a URL is a full one, after which validators live in Stash's table.
    @Test func aStoreWithTheOldValidatorModelKeepsWorking() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let legacy = try store.legacyContainer()
        let old = ManagedObjectContext(legacy)
        let validator = HTTPValidator(context: old)
        validator.url = server.base.absoluteString + "items?count=2&etag=1"
        validator.etag = #""items-1-2""#
        validator.entity = "Item"
        try old.save()
        let api = testClient(server)
        let context = ManagedObjectContext(legacy)
        let first = try await api.fetchReporting([Item].self, from: "items?count=2&etag=1", into: context)
        #expect(!first.report.notModified && first.report.inserted == 2)
        let second = try await api.fetchReporting([Item].self, from: "items?count=2&etag=1", into: context)
        #expect(second.report.notModified && second.value.map(\.id) == [1, 2])
        #expect(try await server.requests().map { $0.headers["if-none-match"] } == [nil, #""items-1-2""#])
        #expect(
            try store.sqlite(#"SELECT "url", "etag", length("rows") FROM "HTTPValidator""#)
                == server.base.absoluteString + #"items?count=2&etag=1|"items-1-2"|0"#)
        // And without the model, the same store, the same validators.
        let third = try await api.fetchReporting(
            [Item].self, from: "items?count=2&etag=1", into: ManagedObjectContext(try store.container()))
        #expect(third.report.notModified && third.value.map(\.id) == [1, 2])
    }
}
