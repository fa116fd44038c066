import Foundation
import Stash
import Testing

@testable import StashREST

/// A paged import asks for the next page while the current one decodes, when the answer
/// names it without a decode (`Link`, a next URL or cursor in the body), and for the page
/// after it as soon as that answer comes (`PageReadAhead`, two pages ahead at most): still
/// each page once, in order, none past `pageLimit`, none that the loop would refuse to follow
/// or after an answer it refuses.
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

    /// Options for pages whose body names the next one (`"next"`).
    private static var bodyPaged: FetchOptions {
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        return options
    }

    /// A page on the test server whose body is `json`; its request makes the file `marker`, if
    /// given; `query` goes at the end of its URL.
    private func page(on server: TestServer, _ json: String, touching marker: String? = nil, _ query: String = "")
        -> String
    {
        server.base.absoluteString + bodyPath(json) + (marker.map { "&touch=" + queryValue($0) } ?? "") + query
    }

    /// The first page of a read-ahead test: an object that waits for the request that makes
    /// `awaited`, then one that looks, a pause later, whether the request that makes `absent`
    /// came; the page leads to `next`.
    private func pacedFirstPage(waitingFor awaited: String, thenLookingFor absent: String, next: String) -> String {
        bodyPath(
            #"{"items": [{"id": 1, "title": "\#(PacedNote.waitPrefix)\#(awaited)"}, "#
                + #"{"id": 10, "title": "\#(PacedNote.checkPrefix)\#(absent)"}], "next": "\#(next)"}"#)
    }

    /// The page after the next is asked for as soon as the next one's answer names it, while
    /// page 1 still decodes: page 1's first object waits for page 3's request. No further: two
    /// pages wait at most (`PageReadAhead`'s depth), so page 4 is not asked for yet when page
    /// 1's second object looks, a pause later. It is asked for as the loop takes page 2, before
    /// page 2 decodes: page 2's object waits for page 4's request.
    @Test func pagesAreAskedForAsTheAnswersNameThemTwoAhead() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let third = store.directory.appendingPathComponent("page-3-asked").path
        let fourth = store.directory.appendingPathComponent("page-4-asked").path
        let page4 = page(on: server, #"{"items": [{"id": 4, "title": "four"}]}"#, touching: fourth)
        let page3 = page(on: server, #"{"items": [{"id": 3, "title": "three"}], "next": "\#(page4)"}"#, touching: third)
        let page2 = page(
            on: server, #"{"items": [{"id": 2, "title": "\#(PacedNote.waitPrefix)\#(fourth)"}], "next": "\#(page3)"}"#)
        let page1 = pacedFirstPage(waitingFor: third, thenLookingFor: fourth, next: page2)
        let notes = try await testClient(server).fetch(
            [PacedNote].self, from: page1, into: context, options: Self.bodyPaged)
        #expect(notes.map(\.title) == ["came", "absent", "came", "three", "four"])
        #expect(FileManager.default.fileExists(atPath: fourth))
        let asked = try await server.requests().map(\.path)
        #expect(asked.count == 4 && Set(asked).count == 4)
        #expect(
            try store.sqlite(#"SELECT group_concat("id", ',') FROM (SELECT "id" FROM "PacedNote" ORDER BY "id")"#)
                == "1,2,3,4,10")
    }

    /// Page 2's answer, come while page 1 still decodes, names page 3; page 2's request adds
    /// `query`. The call must fail as `fails` says, nothing saved, and page 3 never be asked
    /// for.
    private func expectPage3NeverAsked(page2Query query: String = "", limit: Int? = nil, fails: RESTError.Code)
        async throws
    {
        let (server, store, context) = try await serverAndEmptyStore()
        let second = store.directory.appendingPathComponent("page-2-asked").path
        let third = store.directory.appendingPathComponent("page-3-asked").path
        var options = Self.bodyPaged
        if let limit { options.pageLimit = limit }
        let page3 = page(on: server, #"{"items": [{"id": 3, "title": "three"}]}"#, touching: third)
        let page2 = page(
            on: server, #"{"items": [{"id": 2, "title": "two"}], "next": "\#(page3)"}"#, touching: second, query)
        let page1 = pacedFirstPage(waitingFor: second, thenLookingFor: third, next: page2)
        await #expect {
            _ = try await testClient(server).fetch([PacedNote].self, from: page1, into: context, options: options)
        } throws: { error in
            (error as? RESTError)?.code == fails
        }
        #expect(!FileManager.default.fileExists(atPath: third))
        #expect(try await server.requests().count == 2)
        #expect(try store.count("PacedNote") == 0)
    }

    /// Pages asked for as the answers name them stop at `pageLimit`: with a limit of 2, page
    /// 2's answer leads to no request for page 3, and the call fails at the limit.
    @Test func pagesAskedAheadStopAtThePageLimit() async throws {
        try await expectPage3NeverAsked(limit: 2, fails: .tooManyPages)
    }

    /// An answer the loop refuses (not JSON) leads nowhere ahead: page 3, which page 2 names,
    /// is not asked for, and the call fails on page 2.
    @Test func anAnswerTheLoopRefusesLeadsNowhereAhead() async throws {
        try await expectPage3NeverAsked(page2Query: "&type=text%2Fhtml", fails: .notJSON)
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

    /// The deadline passes while the loop saves page 1 (`.perPage`, a slow `willSave()`),
    /// away from any request or decode; page 2, asked for ahead, answers after it. The call is
    /// cancelled: page 2's answer asks for nothing more (page 3, which it names, is not asked
    /// for), as the loop, cancelled, would not ask for it.
    @Test func aCancelledImportAsksForNoPageAheadWhileItSaves() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let third = store.directory.appendingPathComponent("page-3-asked").path
        let api = testClient(server) {
            $0.deadline = .seconds(1)
            $0.timeout = .seconds(30)
        }
        var options = Self.bodyPaged
        options.saving = .perPage
        let page3 = page(on: server, #"{"items": [{"id": 3, "title": "three"}]}"#, touching: third)
        let page2 = page(on: server, #"{"items": [{"id": 2, "title": "two"}], "next": "\#(page3)"}"#, "&delay=1.6")
        let page1 = bodyPath(
            #"{"items": [{"id": 1, "title": "\#(PacedNote.slowSave)"}], "next": "\#(page2)"}"#)
        let error = await #expect(throws: RESTError.self) {
            _ = try await api.fetch([PacedNote].self, from: page1, into: context, options: options)
        }
        #expect(error?.code == .timedOut)
        // Page 3's request, had it been sent, would have come by now.
        try await Task.sleep(for: .milliseconds(500))
        #expect(!FileManager.default.fileExists(atPath: third))
        // Pages 1 and 2 at most: on a loaded machine (ThreadSanitizer, the whole suite at once)
        // the deadline can pass before page 2 is asked for at all.
        #expect(try await server.requests().count <= 2)
    }
}
