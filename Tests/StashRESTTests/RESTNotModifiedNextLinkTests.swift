import Foundation
import Stash
import StashREST
import TestProcesses
import Testing

/// A 304 says the page's *body* is the same; it does not say where the list goes on from it.
/// A `Link` header is not part of the body an ETag is made from (GitHub's ETag is the body's),
/// so page 1 can answer 304 while its `Link rel="next"` has moved: a cursor that expired and
/// was replaced, or a list that grew past the page. The 304 carries the new `Link` header, and
/// the import follows it (it followed the one kept from the last full answer before).
@Suite struct RESTNotModifiedNextLinkTests {
    func link(_ server: TestServer, _ path: String) -> String {
        "<\(server.base.absoluteString)\(path)>; rel=\"next\""
    }

    /// The stored next URL carried a cursor that the server has since retired (410 Gone);
    /// page 1's own answer, a 304, names the new one. Every refresh fails from now on, for as
    /// long as page 1 stays the same.
    @Test func a304WhoseLinkMovedIsFollowedNotTheKeptNextURL() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try PersistentContainer(for: Item.self, storeURL: store.file))
        let api = testClient(server)
        let page1 = #"[{"id": 1, "title": "one", "tags": []}]"#
        try await server.script(
            "p1", body: page1, headers: ["ETag": "\"p1\"", "Link": link(server, "scripted/p2?cursor=abc")])
        try await server.script("p2", body: #"[{"id": 2, "title": "two", "tags": []}]"#, headers: ["ETag": "\"p2\""])
        let first = try await api.fetch([Item].self, from: "scripted/p1", into: context)
        #expect(first.map(\.id) == [1, 2])

        // Page 1's body (and so its ETag) is unchanged; its Link now names cursor xyz, on
        // another path; the old cursor's page is gone.
        try await server.script(
            "p1", body: page1, headers: ["ETag": "\"p1\"", "Link": link(server, "scripted/p3?cursor=xyz")])
        try await server.script("p2", status: 410, body: #"{"message": "cursor expired"}"#, headers: [:])
        try await server.script(
            "p3", body: #"[{"id": 2, "title": "two", "tags": []}, {"id": 3, "title": "three", "tags": []}]"#,
            headers: ["ETag": "\"p3\""])
        let again: [Item]
        do {
            again = try await api.fetch([Item].self, from: "scripted/p1", into: context)
        } catch {
            Testing.Issue.record("the refresh failed: \(error)")
            let paths = try await server.requests().map(\.path).filter { !$0.contains("/set?") }
            Testing.Issue.record("requests: \(paths)")
            return
        }
        #expect(again.map(\.id) == [1, 2, 3])
    }

    /// Page 1 was the whole list (no next link) when it was last fetched in full; the list
    /// grew onto a page 2, page 1's body did not change. The 304 carries `Link rel="next"`;
    /// the import stops at page 1, reports "not modified", and never sees item 2.
    @Test func a304ThatNowLinksToANextPageIsNotTheEndOfTheList() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try PersistentContainer(for: Item.self, storeURL: store.file))
        let api = testClient(server)
        let page1 = #"[{"id": 1, "title": "one", "tags": []}]"#
        try await server.script("p1", body: page1, headers: ["ETag": "\"p1\""])
        let first = try await api.fetch([Item].self, from: "scripted/p1", into: context)
        #expect(first.map(\.id) == [1])

        try await server.script(
            "p1", body: page1, headers: ["ETag": "\"p1\"", "Link": link(server, "scripted/p2?page=2")])
        try await server.script("p2", body: #"[{"id": 2, "title": "two", "tags": []}]"#, headers: ["ETag": "\"p2\""])
        let again = try await api.fetchReporting([Item].self, from: "scripted/p1", into: context)
        #expect(again.value.map(\.id) == [1, 2])
        #expect(!again.report.notModified)
        #expect(try store.sqlite("SELECT count(*) FROM Item") == "2")
    }
}
