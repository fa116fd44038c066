import Foundation
import Stash
import Testing

@testable import StashREST

/// A paged import asks for the next page while the current one decodes, when the answer
/// names it without a decode (`Link`, a next URL or cursor in the body): still each page once,
/// in order, none past `pageLimit` (`RESTFailureTests.tooManyPagesSavesNothing`), none that
/// the loop would refuse to follow.
@Suite struct RESTAskAheadTests {
    @Test func eachPageOnceInOrder() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let result = try await testClient(server).fetchReporting(
            [Item].self, from: "items?count=10&per_page=3", into: context)
        #expect(result.value.map(\.id) == Array(1...10))
        #expect(result.report.pages == 4 && result.report.inserted == 10)
        let asked = try await server.requests().map(\.path)
        #expect(
            asked == ["/items?count=10&per_page=3"]
                + (2...4).map { "/items?count=10&start=1&per_page=3&page=\($0)" })
        #expect(try store.count("Item") == 10)
    }

    /// The next page is asked for while this one decodes, not after it: page 1's object waits
    /// in its `init(from:)` for the server to see page 2's request (a file the server makes),
    /// which a loop asking in turn would send only once page 1 had decoded.
    @Test func theNextPageIsAskedForWhileThisOneDecodes() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let marker = store.directory.appendingPathComponent("page-2-asked").path
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        let second =
            server.base.absoluteString + bodyPath(#"{"items": [{"id": 2, "title": "two"}]}"#) + "&touch="
            + queryValue(marker)
        let first = bodyPath(
            #"{"items": [{"id": 1, "title": "\#(PacedNote.waitPrefix)\#(marker)"}], "next": "\#(second)"}"#)
        let notes = try await testClient(server).fetch([PacedNote].self, from: first, into: context, options: options)
        #expect(notes.map(\.title) == ["came", "two"])
        #expect(try store.sqlite(#"SELECT group_concat("title", ',') FROM "PacedNote""#) == "came,two")
    }

    /// Page 1 changed, pages 2 and 3 did not: page 2 is asked for while page 1 decodes, with
    /// the validator kept for it, and its 304 stands, as asked in turn it would.
    @Test func aPageAskedAheadSendsItsValidators() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.saving = .perPage
        let api = testClient(server)
        let path = "paged/ahead?pages=3&per_page=2"
        _ = try await api.fetch([Item].self, from: path, into: context, options: options)
        try await server.get("paged/ahead/edit?page=1&title=changed")
        let before = try await server.requests().count
        let again = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(again.value.map(\.title) == ["changed 1", "changed 2", "Item 3", "Item 4", "Item 5", "Item 6"])
        #expect(again.report.updated == 2 && again.report.unchanged == 4 && again.report.pages == 3)
        let asked = try await server.requests().dropFirst(before).filter { $0.path.contains("/paged/ahead?") }
        #expect(asked.map(\.path).count == 3)
        #expect(asked.allSatisfy { $0.headers["if-none-match"] != nil })
        #expect(Set(asked.map(\.path)).count == 3)
        #expect(
            try store.sqlite(#"SELECT group_concat("title", ',') FROM "Item" WHERE "id" <= 2"#) == "changed 1,changed 2"
        )
    }

    /// Pages 1 and 3 changed, page 2 did not, saving once at the end: page 2 is asked for
    /// while page 1 decodes and its 304 stands; page 3, asked for in turn after it, is
    /// decoded with its edit (a 304 names no page to ask for ahead).
    @Test func anEditOnALaterPageIsDecodedAfterAPageAskedAhead() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let path = "paged/later?pages=3&per_page=2"
        _ = try await api.fetch([Item].self, from: path, into: context)
        try await server.get("paged/later/edit?page=1&title=changed")
        try await server.get("paged/later/edit?page=3&title=changed")
        let before = try await server.requests().count
        let again = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(
            again.value.map(\.title) == ["changed 1", "changed 2", "Item 3", "Item 4", "changed 5", "changed 6"])
        #expect(again.report.updated == 4 && again.report.unchanged == 2 && again.report.pages == 3)
        let asked = try await server.requests().dropFirst(before).filter { $0.path.contains("/paged/later?") }
        #expect(asked.count == 3 && asked.allSatisfy { $0.headers["if-none-match"] != nil })
        #expect(
            try store.sqlite(#"SELECT group_concat("title", ',') FROM "Item""#)
                == "changed 1,changed 2,Item 3,Item 4,changed 5,changed 6")
    }

    /// A next page whose URL the loop would refuse (a scheme not allowed) is not asked for:
    /// the call fails naming it, nothing saved.
    @Test func aNextURLTheLoopRefusesIsNotAskedFor() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        let body = #"{"items": [{"id": 1, "title": "one"}], "next": "ftp://127.0.0.1/items?page=2"}"#
        await #expect {
            _ = try await testClient(server).fetch([Item].self, from: bodyPath(body), into: context, options: options)
        } throws: { error in
            (error as? RESTError)?.code == .schemeNotAllowed
        }
        #expect(try await server.requests().count == 1)
        #expect(try store.count("Item") == 0)
    }

    /// A page that fails to decode ends the call with nothing saved, whatever was asked ahead.
    @Test func aPageThatFailsToDecodeSavesNothing() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        let third = server.base.absoluteString + bodyPath(#"{"items": [{"id": 3, "title": "three"}]}"#)
        let second =
            server.base.absoluteString
            + bodyPath(#"{"items": [{"id": 2, "title": 2}], "next": "\#(third)"}"#)
        let first = bodyPath(#"{"items": [{"id": 1, "title": "one"}], "next": "\#(second)"}"#)
        await #expect {
            _ = try await testClient(server).fetch([Item].self, from: first, into: context, options: options)
        } throws: { error in
            (error as? RESTError)?.code == .decoding && (error as? RESTError)?.url?.absoluteString == second
        }
        let asked = try await server.requests().map(\.path)
        #expect(asked.count >= 2 && asked.count <= 3)
        #expect(try store.count("Item") == 0)
    }

    /// The deadline ends a call whose next page, asked for ahead, trickles in: the request
    /// is cancelled with the call, not waited out (15 s), and nothing is saved.
    @Test func theDeadlineEndsAPageAskedAhead() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server) {
            $0.deadline = .seconds(1)
            $0.timeout = .seconds(30)
        }
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        let slow = server.base.absoluteString + "trickle?count=4&every=0.3"
        let first = bodyPath(#"{"items": [{"id": 1, "title": "one"}], "next": "\#(slow)"}"#)
        let started = ContinuousClock.now
        let error = await #expect(throws: RESTError.self) {
            _ = try await api.fetch([Item].self, from: first, into: context, options: options)
        }
        #expect(error?.code == .timedOut)
        // Generous for a loaded machine under ThreadSanitizer (11.6 s seen there against a 1 s
        // deadline); the trickle alone takes about a minute, which a page asked ahead and not
        // cancelled would wait out.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try store.count("Item") == 0)
    }
}
