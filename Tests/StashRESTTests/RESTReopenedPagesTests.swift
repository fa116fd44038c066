import Foundation
import Stash
import StashREST
import Testing

/// Pages imported with validators, the container closed and the file opened again (the app's
/// next launch), and then the server's list moves: each refresh runs in a container of its
/// own, and the rows and the validators kept after it are what the server's pages say.
@Suite struct RESTReopenedPagesTests {
    let server: TestServer
    let store: TemporaryStore

    init() async throws {
        server = try await TestServer.start()
        store = try TemporaryStore()
    }

    func item(_ id: Int, _ title: String? = nil) -> String {
        #"{"id": \#(id), "title": "\#(title ?? "Item \(id)")", "tags": []}"#
    }

    /// Scripts page `name` with `ids` (and `titles`), the ETag `tag` and a link to `next`.
    func page(_ name: String, _ ids: [Int], tag: String, next: String?, titles: [Int: String] = [:]) async throws {
        var headers = ["ETag": "\"\(tag)\""]
        if let next { headers["Link"] = "<\(server.base.absoluteString)scripted/\(next)>; rel=\"next\"" }
        try await server.script(
            name, body: "[" + ids.map { item($0, titles[$0]) }.joined(separator: ", ") + "]", headers: headers)
    }

    /// A sync of the list in a container opened for it, closed when it returns.
    func refresh() async throws -> ImportReport {
        let context = ManagedObjectContext(try store.container())
        return try await testClient(server).fetchReporting(
            [Item].self, from: "scripted/p1", into: context, deletingMissing: .all
        ).report
    }

    func rows() throws -> String {
        try store.sqlite(#"SELECT group_concat("id" || ':' || "title", ',') FROM (SELECT * FROM "Item" ORDER BY "id")"#)
    }

    /// The ETag kept for each page, by page name.
    func validators() throws -> String {
        try store.sqlite(
            #"SELECT group_concat(substr("key", instr("key", 'scripted/') + 9) || '=' || json_extract("value", '$.etag'), ',') FROM (SELECT * FROM "_stash_http_validators" ORDER BY "key")"#
        )
    }

    /// What the client sent as `If-None-Match`, per page, since `from`.
    func sent(since from: Int) async throws -> [String] {
        try await server.requests().filter { !$0.path.contains("/set?") }.dropFirst(from).map {
            "\($0.path.dropFirst("/scripted/".count))" + ($0.headers["if-none-match"].map { "?" + $0 } ?? "")
        }
    }

    func requestCount() async throws -> Int {
        try await server.requests().filter { !$0.path.contains("/set?") }.count
    }

    @Test func aReopenedStoreFollowsTheListAsItMoves() async throws {
        try await page("p1", [1, 2], tag: "1a", next: "p2")
        try await page("p2", [3, 4], tag: "2a", next: "p3")
        try await page("p3", [5], tag: "3a", next: nil)
        let first = try await refresh()
        #expect(first.inserted == 5 && first.pages == 3)
        #expect(try validators() == #"p1="1a",p2="2a",p3="3a""#)

        // (a) Page 1 the same (a 304), page 2 changed.
        try await page("p2", [3, 4], tag: "2b", next: "p3", titles: [3: "three"])
        var asked = try await requestCount()
        let changed = try await refresh()
        #expect(try await sent(since: asked) == [#"p1?"1a""#, #"p2?"2a""#, #"p3?"3a""#])
        #expect(!changed.notModified && changed.updated == 1 && changed.unchanged == 4)
        #expect(try rows() == "1:Item 1,2:Item 2,3:three,4:Item 4,5:Item 5")
        #expect(try validators() == #"p1="1a",p2="2b",p3="3a""#)
        #expect(try await refresh().notModified)

        // (b) The window moved: item 0 came first, every item one place on; then item 3 went,
        // page 1 the same (a 304) and the later pages moved back.
        try await page("p1", [0, 1], tag: "1c", next: "p2")
        try await page("p2", [2, 3], tag: "2c", next: "p3", titles: [3: "three"])
        try await page("p3", [4, 5], tag: "3c", next: nil)
        let moved = try await refresh()
        #expect(moved.inserted == 1 && moved.deleted == 0 && moved.pages == 3)
        #expect(try rows() == "0:Item 0,1:Item 1,2:Item 2,3:three,4:Item 4,5:Item 5")
        #expect(try validators() == #"p1="1c",p2="2c",p3="3c""#)
        try await page("p2", [2, 4], tag: "2d", next: "p3")
        try await page("p3", [5], tag: "3d", next: nil)
        asked = try await requestCount()
        let shifted = try await refresh()
        #expect(try await sent(since: asked) == [#"p1?"1c""#, #"p2?"2c""#, #"p3?"3c""#])
        #expect(shifted.deleted == 1 && shifted.inserted == 0)
        #expect(try rows() == "0:Item 0,1:Item 1,2:Item 2,4:Item 4,5:Item 5")
        #expect(try validators() == #"p1="1c",p2="2d",p3="3d""#)
        #expect(try await refresh().notModified)

        // (c) Page 3 went: page 2 took item 5 and links nowhere; page 3's URL answers 404.
        try await page("p2", [2, 4, 5], tag: "2e", next: nil)
        try await server.script("p3", status: 404, body: #"{"message": "Not Found"}"#, headers: [:])
        asked = try await requestCount()
        let shrunk = try await refresh()
        #expect(try await sent(since: asked) == [#"p1?"1c""#, #"p2?"2d""#])
        #expect(shrunk.pages == 2 && shrunk.deleted == 0)
        #expect(try rows() == "0:Item 0,1:Item 1,2:Item 2,4:Item 4,5:Item 5")
        #expect(
            try store.sqlite(
                #"SELECT json_extract("value", '$.next') FROM "_stash_http_validators" WHERE "key" LIKE '%p2'"#) == "")
        let settled = try await refresh()
        #expect(settled.notModified && settled.pages == 2 && settled.unchanged == 5)

        // Then item 5 went too, page 2 shrank again.
        try await page("p2", [2, 4], tag: "2f", next: nil)
        let last = try await refresh()
        #expect(last.deleted == 1)
        #expect(try rows() == "0:Item 0,1:Item 1,2:Item 2,4:Item 4")
    }
}
