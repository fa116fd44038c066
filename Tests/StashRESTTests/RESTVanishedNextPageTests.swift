import Foundation
import Stash
import StashREST
import Testing

/// A 304 need not repeat the `Link` header (RFC 9110 §15.4.5): a page that answers one goes
/// where its last full answer led. When the list shrank and that page is gone (404, 410), the
/// page that led there is asked again in full, once, to learn where it leads now; before, the
/// import failed, and so did every refresh after it, for as long as the 304 held.
@Suite struct RESTVanishedNextPageTests {
    let server: TestServer
    let store: TemporaryStore

    init() async throws {
        server = try await TestServer.start()
        store = try TemporaryStore()
    }

    func item(_ id: Int) -> String {
        #"{"id": \#(id), "title": "Item \#(id)", "tags": []}"#
    }

    /// Scripts page `name` with `ids`, the ETag `tag` and a link to `next`; its 304 sends the
    /// ETag alone.
    func page(_ name: String, _ ids: [Int], tag: String, next: String?) async throws {
        var headers = ["ETag": "\"\(tag)\""]
        if let next { headers["Link"] = "<\(server.base.absoluteString)scripted/\(next)>; rel=\"next\"" }
        try await server.script(
            name, body: "[" + ids.map(item).joined(separator: ", ") + "]", headers: headers, bare304: true)
    }

    func gone(_ name: String, status: Int = 404) async throws {
        try await server.script(name, status: status, body: #"{"message": "Not Found"}"#, headers: [:])
    }

    /// A sync of the list in a container opened for it.
    func refresh(_ saving: FetchOptions.Saving = .atEnd, _ change: (inout RESTConfiguration) -> Void = { _ in })
        async throws -> ImportReport
    {
        let context = ManagedObjectContext(try store.container())
        var options = FetchOptions()
        options.saving = saving
        return try await testClient(server, change).fetchReporting(
            [Item].self, from: "scripted/p1", into: context, options: options, deletingMissing: .all
        ).report
    }

    func rows() throws -> String {
        try store.sqlite(#"SELECT group_concat("id", ',') FROM (SELECT * FROM "Item" ORDER BY "id")"#)
    }

    /// Each page's kept ETag and next page, by page name.
    func validators() throws -> String {
        try store.sqlite(
            #"SELECT group_concat(substr("key", instr("key", 'scripted/') + 9) || '=' || json_extract("value", '$.etag') || '>' || coalesce(substr(json_extract("value", '$.next'), instr(json_extract("value", '$.next'), 'scripted/') + 9), '-'), ',') FROM (SELECT * FROM "_stash_http_validators" ORDER BY "key")"#
        )
    }

    /// What the client asked for since `from`, with the `If-None-Match` it sent.
    func sent(since from: Int) async throws -> [String] {
        try await server.requests().filter { !$0.path.contains("/set?") }.dropFirst(from).map {
            "\($0.path.dropFirst("/scripted/".count))" + ($0.headers["if-none-match"].map { "?" + $0 } ?? "")
        }
    }

    func requestCount() async throws -> Int {
        try await server.requests().filter { !$0.path.contains("/set?") }.count
    }

    /// p1 → p2 → p3, imported with their validators.
    func importThreePages(_ saving: FetchOptions.Saving = .atEnd) async throws {
        try await page("p1", [1, 2], tag: "1a", next: "p2")
        try await page("p2", [3, 4], tag: "2a", next: "p3")
        try await page("p3", [5], tag: "3a", next: nil)
        let first = try await refresh(saving)
        #expect(first.inserted == 5 && first.pages == 3)
        #expect(try validators() == #"p1="1a">p2,p2="2a">p3,p3="3a">-"#)
    }

    /// The refresh after a failed one does the same: it is no way out.
    @Test func aGoneLastPageDoesNotFailEveryRefresh() async throws {
        try await importThreePages()
        try await page("p2", [3, 4], tag: "2a", next: nil)
        try await gone("p3")
        var failures: [String] = []
        for _ in 0..<2 {
            do { _ = try await refresh() } catch { failures.append("\(error)") }
        }
        #expect(failures == [])
        #expect(try rows() == "1,2,3,4")
    }

    /// Item 5 went, and page 3 with it: page 2's body is the same (a 304 without `Link`), its
    /// full answer links nowhere now. The import asks page 2 again in full, and the sync
    /// deletes item 5; the next refresh is all 304s.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func theLastPageGoneAsksThePageBeforeAgain(_ saving: FetchOptions.Saving) async throws {
        try await importThreePages(saving)
        try await page("p2", [3, 4], tag: "2a", next: nil)
        try await gone("p3")
        let asked = try await requestCount()
        let shrunk = try await refresh(saving)
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#, #"p3?"3a""#, "p2"])
        #expect(shrunk.pages == 2 && shrunk.deleted == 1 && shrunk.inserted == 0 && shrunk.updated == 0)
        #expect(try rows() == "1,2,3,4")
        #expect(try validators().hasPrefix(#"p1="1a">p2,p2="2a">-"#))

        let settled = try await refresh(saving)
        #expect(settled.notModified && settled.pages == 2 && settled.unchanged == 4 && settled.deleted == 0)
        #expect(try rows() == "1,2,3,4")
    }

    /// Items 3 and 4 went, and page 2 with them (410): page 1's body is the same, its full
    /// answer links to page 3 now. Page 1 is asked again in full; page 3 answers 304.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aMiddlePageGoneAsksTheFirstAgain(_ saving: FetchOptions.Saving) async throws {
        try await importThreePages(saving)
        try await page("p1", [1, 2], tag: "1a", next: "p3")
        try await gone("p2", status: 410)
        let asked = try await requestCount()
        let shrunk = try await refresh(saving)
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#, "p1", #"p3?"3a""#])
        #expect(shrunk.pages == 2 && shrunk.deleted == 2 && shrunk.inserted == 0 && shrunk.updated == 0)
        #expect(try rows() == "1,2,5")
        #expect(try validators() == #"p1="1a">p3,p2="2a">p3,p3="3a">-"#)

        let settled = try await refresh(saving)
        #expect(settled.notModified && settled.pages == 2 && settled.unchanged == 3)
        #expect(try rows() == "1,2,5")
    }

    /// Page 2 is gone, but page 1's full answer still links to it: a 404 through a link the
    /// server just sent fails, naming the page; page 1 is asked again once, nothing is saved.
    @Test func aPageStillLinkedToFailsAfterOneFullAnswer() async throws {
        try await importThreePages()
        try await gone("p2")
        let asked = try await requestCount()
        let error = await #expect(throws: RESTError.self) { try await refresh() }
        #expect(error?.code == .status && error?.status == 404)
        #expect(error?.url?.absoluteString == server.base.absoluteString + "scripted/p2")
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#, "p1", #"p2?"2a""#])
        #expect(try rows() == "1,2,3,4,5")
        #expect(try validators() == #"p1="1a">p2,p2="2a">p3,p3="3a">-"#)
    }

    /// A page that changed links to one that is gone: a 404 through a fresh link fails, and no
    /// page is asked again.
    @Test func a404ThroughAFreshLinkFails() async throws {
        try await importThreePages()
        try await page("p1", [1, 2], tag: "1b", next: "p4")
        try await gone("p4")
        let asked = try await requestCount()
        let error = await #expect(throws: RESTError.self) { try await refresh() }
        #expect(error?.code == .status && error?.status == 404)
        #expect(error?.url?.absoluteString == server.base.absoluteString + "scripted/p4")
        #expect(try await sent(since: asked) == [#"p1?"1a""#, "p4"])
        #expect(try rows() == "1,2,3,4,5")
    }

    /// Any other failure of the page a 304 led to fails the import as before: no page is asked
    /// again.
    @Test func aServerErrorOnThePageA304LedToFails() async throws {
        try await importThreePages()
        try await server.script("p2", status: 500, body: #"{"message": "boom"}"#, headers: [:])
        let asked = try await requestCount()
        let error = await #expect(throws: RESTError.self) {
            try await refresh(.atEnd) { $0.retry.maximumAttempts = 1 }
        }
        #expect(error?.code == .status && error?.status == 500)
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#])
        #expect(try rows() == "1,2,3,4,5")
    }
}

extension RESTVanishedNextPageTests {
    /// Page 2's 304 stood for a body that is not what its full answer holds now (a stale
    /// ETag): item 5 moved onto page 2 when page 3 went. What page 2's 304 counted is taken
    /// back; the sync keeps item 5 (the fresh answer names it) and counts each item once.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func theVanishedPagesItemOnThePageAskedAgainIsKept(_ saving: FetchOptions.Saving) async throws {
        try await importThreePages(saving)
        try await page("p2", [3, 4, 5], tag: "2a", next: nil)
        try await gone("p3")
        let asked = try await requestCount()
        let (stream, continuation) = AsyncStream.makeStream(of: RESTProgress.self)
        let context = ManagedObjectContext(try store.container())
        var options = FetchOptions()
        options.saving = saving
        options.progress = continuation
        let shrunk = try await testClient(server).fetchReporting(
            [Item].self, from: "scripted/p1", into: context, options: options, deletingMissing: .all
        )
        continuation.finish()
        var numbers: [Int] = []
        for await event in stream {
            if case .page(let number, _) = event { numbers.append(number) }
        }
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#, #"p3?"3a""#, "p2"])
        #expect(shrunk.value.map(\.id) == [1, 2, 3, 4, 5])
        #expect(shrunk.report.pages == 2 && shrunk.report.deleted == 0 && shrunk.report.inserted == 0)
        #expect(shrunk.report.unchanged + shrunk.report.updated == 5)
        #expect(try rows() == "1,2,3,4,5")
        // Page 2 was reported for its 304 and again for its full answer: never past 2.
        #expect(numbers.last == 2 && numbers.max() == 2)
    }
}
