import Foundation
import Stash
import StashREST
import Testing

/// Servers that lie or misbehave, and callers whose input would put something else on the
/// wire: pages in a cycle, 304s to anything, injected headers, trickled bodies.
@Suite struct RESTHostileServerTests {
    /// 70 rows stored before the sync, ids 1 to 70: what a sync must not delete on a
    /// failure.
    func seventyStoredItems(in container: PersistentContainer) throws {
        let context = ManagedObjectContext(container)
        for id in 1...70 {
            let item = Item(context: context)
            item.id = id
            item.title = "stored \(id)"
        }
        try context.save()
    }

    /// Pages 1, 2, 3, then 1 again: an error, not the end of the list, and the sync deletes
    /// nothing (it deleted the 70 rows no page held, and reported success).
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aPaginationCycleIsAnErrorAndTheSyncDeletesNothing(saving: FetchOptions.Saving) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        try seventyStoredItems(in: context.container)
        var options = FetchOptions()
        options.saving = saving
        let error = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetchReporting(
                [Item].self, from: "cycle?pages=3&page=1", into: context, options: options, deletingMissing: .all)
        }
        #expect(error?.code == .pageCycle)
        #expect(error?.url?.absoluteString.hasSuffix("/cycle?pages=3&page=3") == true)
        #expect(
            error?.message.hasPrefix("page 3 leads back to \(server.base.absoluteString)cycle?pages=3&page=1") == true)
        #expect(try await server.requests().map(\.path) == (1...3).map { "/cycle?pages=3&page=\($0)" })
        // Nothing deleted; page by page, the pages before the error are kept.
        let ids = try ManagedObjectContext(try store.container()).fetch(FetchDescriptor<Item>()).map(\.id).sorted()
        #expect(ids == Array(1...70) + (saving == .perPage ? Array(1000...1005) : []))
        #expect(!context.hasChanges)
    }

    /// A CR LF in a header's name went onto the wire as two headers; in a value, the header
    /// was dropped in silence. Both are refused before anything is sent, in the client's
    /// headers, its authorization and the call's.
    @Test func headerInjectionIsRefusedBeforeAnythingIsSent() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var badName = FetchOptions()
        badName.headers = ["X-Bad\r\nInjected2": "v"]
        let name = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch([Item].self, from: "items?count=2", into: context, options: badName)
        }
        #expect(name?.code == .invalidHeader)
        #expect(
            name?.message
                == #"the header name "X-Bad\r\nInjected2" (FetchOptions.headers) is not an RFC 9110 token: letters, "#
                + "digits and !#$%&'*+-.^_`|~ only; nothing was sent")
        #expect(name?.url?.absoluteString == server.base.absoluteString + "items?count=2")

        var badValue = FetchOptions()
        badValue.headers = ["X-Trace": "1\r\nX-Injected: 2"]
        let value = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch([Item].self, from: "items", into: context, options: badValue)
        }
        #expect(value?.code == .invalidHeader)
        #expect(
            value?.message.hasPrefix("the value of the header X-Trace (FetchOptions.headers) holds a control") == true)

        let defaults = await #expect(throws: RESTError.self) {
            _ = try await testClient(server) { $0.headers["X-Space Name"] = "v" }.fetch(
                Item.self, from: "items?single=1", into: context)
        }
        #expect(defaults?.message.contains(#""X-Space Name" (RESTConfiguration.headers)"#) == true)
        let token = await #expect(throws: RESTError.self) {
            _ = try await testClient(server) { $0.authorization = .bearer("s3cret\n") }.fetch(
                [Item].self, from: "items", into: context)
        }
        #expect(token?.message.hasPrefix("the value of the header Authorization (authorization)") == true)
        let nul = await #expect(throws: RESTError.self) {
            _ = try await testClient(server) { $0.headers["X-Nul"] = "a\u{0}b" }.fetch(
                [Item].self, from: "items", into: context)
        }
        #expect(nul?.code == .invalidHeader)
        #expect(try await server.requests().isEmpty)
        #expect(try store.count("Item") == 0)

        // What RFC 9110 allows goes through as given: a tab, obs-text, every tchar.
        var allowed = FetchOptions()
        allowed.headers = ["X-!#$%&'*+-.^_`|~1": "a\tb c \u{e9}"]
        let items = try await testClient(server).fetch(
            [Item].self, from: "items?count=2", into: context, options: allowed)
        #expect(items.map(\.id) == [1, 2])
        let sent = try await server.requests()
        #expect(sent.count == 1)
        #expect(sent.first?.headers["x-!#$%&'*+-.^_`|~1"]?.hasPrefix("a\tb c ") == true)
    }

    /// A server that answers 304 to anything, validators sent or not: the error says so,
    /// where it read as a decoding error of an empty body.
    @Test func a304ToARequestWithoutValidatorsIsNamed() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let error = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch([Item].self, from: "always304", into: context)
        }
        #expect(error?.code == .unexpectedNotModified)
        #expect(error?.status == 304)
        #expect(error?.url?.absoluteString == server.base.absoluteString + "always304")
        #expect(
            error?.message
                == "304 Not Modified, but the request sent no validators (If-None-Match, If-Modified-Since) the "
                + "client kept an answer for: there is nothing it could stand for")
        #expect(try await server.requests().map { $0.headers["if-none-match"] } == [nil])
        #expect(try store.count("Item") == 0)
    }

    /// JSON served as `text/plain` (a raw file, a static host): refused by default, naming
    /// what is accepted; accepted once the configuration says so.
    @Test func acceptedContentTypesAreTheConfigurations() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let refused = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch([Item].self, from: "typed?type=text/plain", into: context)
        }
        #expect(refused?.code == .notJSON)
        #expect(
            refused?.message
                == "the body is text/plain, not JSON: not one of the accepted content types (*/*+json, "
                + "application/json, text/json; RESTConfiguration.acceptedContentTypes)")
        #expect(try store.count("Item") == 0)

        let plain = testClient(server) { $0.acceptedContentTypes.insert("text/plain") }
        let items = try await plain.fetch(
            [Item].self, from: "typed?count=3&type=" + queryValue("Text/Plain; charset=utf-8"), into: context)
        #expect(items.map(\.id) == [1, 2, 3])
        #expect(try store.count("Item") == 3)
        // Suffixes and whole types by default and by pattern; HTML still refused.
        let feed = try await testClient(server).fetch(
            [Item].self, from: "typed?count=4&type=" + queryValue("application/feed+json"), into: context)
        #expect(feed.count == 4)
        let anyText = testClient(server) { $0.acceptedContentTypes = ["text/*"] }
        #expect(try await anyText.fetch([Item].self, from: "typed?count=5&type=text/x-json", into: context).count == 5)
        await #expect {
            _ = try await anyText.fetch([Item].self, from: "typed?type=application/json", into: context)
        } throws: { ($0 as? RESTError)?.code == .notJSON }
        #expect(try store.count("Item") == 5)
    }

    /// A body trickled a byte at a time never trips the idle timeout: the deadline ends the
    /// call (it took 125 s and succeeded), and nothing is saved.
    @Test func theDeadlineEndsATrickledBody() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        #expect(RESTConfiguration().deadline == .seconds(300))
        let api = testClient(server) {
            $0.deadline = .seconds(1)
            $0.timeout = .seconds(30)
        }
        // About 50 bytes at one every 0.3 s: 15 s, well past the deadline.
        let error = await #expect(throws: RESTError.self) {
            _ = try await api.fetch([Item].self, from: "trickle?count=1&every=0.3", into: context)
        }
        #expect(error?.code == .timedOut)
        #expect(
            error?.message
                == "the call took longer than its deadline of 1.0 seconds (RESTConfiguration.deadline); nothing was saved"
        )
        #expect(error?.url?.absoluteString == server.base.absoluteString + "trickle?count=1&every=0.3")
        #expect(try store.count("Item") == 0)
        #expect(!context.hasChanges)
    }

    /// Waits between retries count too: a `Retry-After` of an hour is not waited out.
    @Test func theDeadlineCountsRetriesAndTheirWaits() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server) {
            $0.deadline = .seconds(1)
            $0.retry.maximumTotal = .seconds(7_200)
        }
        let error = await #expect(throws: RESTError.self) {
            _ = try await api.fetch([Item].self, from: "limited/a?retry_after=3600", into: context)
        }
        #expect(error?.code == .timedOut)
        #expect(try await server.requests().count == 1)
        #expect(try store.count("Item") == 0)
        // A call within its deadline is untouched by it (a deadline a loaded machine running
        // ThreadSanitizer cannot miss: 1 s was missed there).
        let roomy = testClient(server) { $0.deadline = .seconds(30) }
        let items = try await roomy.fetch([Item].self, from: "items?count=2", into: context)
        #expect(items.map(\.id) == [1, 2])
    }
}
