import Foundation
import Stash
import StashREST
import TestProcesses
import Testing

/// Issue 14, item 5: a placeholder title saved over the server's survived every 304, so it
/// stayed until the feed itself changed. A 304 stands only for rows that still hold what
/// the last full answer set; what the answer never carries (a read flag) is the user's.
@Suite struct RESTLocalEditTests {
    let document = #"""
        {"url": "f", "title": "Server title", "items": [{"id": "1", "title": "one"}, {"id": "2", "title": "two"}]}
        """#

    func container(_ store: TemporaryStore) throws -> PersistentContainer {
        try PersistentContainer(for: Subscription.self, Headline.self, storeURL: store.file)
    }

    func rows(_ store: TemporaryStore) throws -> String {
        try store.sqlite(
            "SELECT f.title, h.id, h.title, h.read FROM Headline h JOIN Subscription f ON f._pk = h.feed ORDER BY h.id")
    }

    /// What the client sent as `If-None-Match` to the feed's URL, request by request.
    func sentTags(_ server: TestServer) async throws -> [String?] {
        try await server.requests().filter { $0.path.hasPrefix("/body?") }.map { $0.headers["if-none-match"] }
    }

    @Test func aLocalEditOfWhatTheAnswerSetIsUndoneThoughTheServerAnswers304() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try container(store))
        let api = testClient(server)
        let path = bodyPath(document) + "&etag=1"
        let first = try await api.fetch(Subscription.self, from: path, into: context)
        #expect(first.title == "Server title" && first.headlines.count == 2)

        // The user's own flag, which the document never carries: the 304 stands.
        first.headlines.first { $0.id == "2" }?.read = true
        try context.save()
        let flagged = try await api.fetchReporting(Subscription.self, from: path, into: context)
        #expect(flagged.report.notModified)
        #expect(try rows(store) == "Server title|1|one|0\nServer title|2|two|1")

        // The issue's placeholder: made in code for a URL the store has, saved as an upsert.
        let placeholder = Subscription()
        placeholder.url = "f"
        placeholder.title = "(loading…)"
        context.insert(placeholder)
        try context.save()
        #expect(try rows(store).hasPrefix("(loading…)|"))
        let restored = try await api.fetchReporting(Subscription.self, from: path, into: context)
        #expect(!restored.report.notModified && restored.report.updated == 1)
        #expect(restored.value.title == "Server title")
        #expect(try rows(store) == "Server title|1|one|0\nServer title|2|two|1")

        // A nested item's title, edited in another context of the container: the same.
        let other = ManagedObjectContext(context.container)
        try other.fetch(FetchDescriptor<Headline>(predicate: #Predicate { $0.id == "1" }))[0].title = "mine"
        try other.save()
        let nested = try await api.fetchReporting(Subscription.self, from: path, into: context)
        #expect(!nested.report.notModified)
        #expect(try rows(store) == "Server title|1|one|0\nServer title|2|two|1")

        // As the last full answer left it: a 304 again.
        let again = try await api.fetchReporting(Subscription.self, from: path, into: context)
        #expect(again.report.notModified && again.value.title == "Server title")
        let tags = try await sentTags(server)
        #expect(tags.map { $0 != nil } == [false, true, true, false, true, false, true])
        #expect(Set(tags.compactMap { $0 }).count == 1)
    }

    /// `.adopt` keeps the stored title from the start: nothing to undo, the 304 stands.
    @Test func anAdoptedPlaceholderLeavesThe304Standing() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try container(store))
        let api = testClient(server)
        let path = bodyPath(document) + "&etag=1"
        _ = try await api.fetch(Subscription.self, from: path, into: context)
        let placeholder = Subscription()
        placeholder.url = "f"
        placeholder.title = "(loading…)"
        context.insert(placeholder, onMatch: .adopt)
        #expect(placeholder.title == "Server title")
        try context.save()
        let second = try await api.fetchReporting(Subscription.self, from: path, into: context)
        #expect(second.report.notModified)
        #expect(try await sentTags(server).map { $0 != nil } == [false, true])
    }
}

@Suite struct RESTLocalEditRecordTests {
    /// A validator kept before Stash recorded what the answer set cannot say whether the
    /// rows still hold it: the page is asked in full once, and then a 304 stands again.
    @Test func aRecordWithoutItsValuesIsAskedInFullOnce() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let path = "items?count=3&etag=1"
        _ = try await api.fetch([Item].self, from: path, into: context)
        let shell = try ChildProcess(
            "/usr/bin/env",
            [
                "sqlite3", store.file.path,
                #"UPDATE "_stash_http_validators" SET "value" = json_remove("value", '$.covered', '$.values')"#,
            ])
        shell.waitUntilExit()
        #expect(try store.sqlite(#"SELECT json_type("value", '$.covered') FROM "_stash_http_validators""#) == "")
        let full = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!full.report.notModified && full.report.unchanged == 3)
        let again = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(again.report.notModified)
        #expect(
            try store.sqlite(#"SELECT json_extract("value", '$.covered[0].columns') FROM "_stash_http_validators""#)
                == #"["id","title","tags"]"#)
    }

    /// A hand-written `init(from:)` says nothing of what it set: every attribute counts.
    @Test func theHandWrittenIdiomsRowsAreCoveredWhole() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        // With an ETag (a 304), and without (the same body again, `BodyFingerprint`).
        for path in ["items?count=2&etag=1", "items?count=2"] {
            let first = try await api.fetch([HandNote].self, from: path, into: context)
            #expect(try await api.fetchReporting([HandNote].self, from: path, into: context).report.notModified)
            first[1].title = "edited here"
            try context.save()
            let restored = try await api.fetchReporting([HandNote].self, from: path, into: context)
            #expect(!restored.report.notModified && restored.value.map(\.title) == ["Item 1", "Item 2"])
            #expect(try store.sqlite(#"SELECT group_concat(title, ',') FROM HandNote"#) == "Item 1,Item 2")
        }
    }
}
