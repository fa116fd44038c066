import Foundation
import Stash
import StashREST
import TestProcesses
import Testing

/// A failure on page 2, after page 1 decoded: the store and the caller's unsaved edits stay.
@MainActor @Suite struct RESTFailedPageLeavesContextTests {
    @Test(arguments: [false, true]) func aFailedSecondPageLeavesStoreAndEdits(malformed: Bool) async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try PersistentContainer(for: Item.self, storeURL: store.file)
        let context = container.mainContext
        let api = testClient(server)
        try await server.script("p1", body: #"[{"id": 1, "title": "one", "tags": []}]"#, headers: ["ETag": "\"a\""])
        let first = try await api.fetch([Item].self, from: "scripted/p1", into: context)
        first[0].title = "mine"
        #expect(context.hasChanges)

        let next = "<\(server.base.absoluteString)scripted/p2>; rel=\"next\""
        try await server.script(
            "p1", body: #"[{"id": 1, "title": "ONE", "tags": []}]"#, headers: ["ETag": "\"b\"", "Link": next])
        if malformed {
            try await server.script("p2", body: #"[{"id": 2, "title": "two", "tags": []"#, headers: [:])
        } else {
            try await server.script("p2", status: 500, body: #"{"message": "boom"}"#, headers: [:])
        }
        do {
            _ = try await api.fetch([Item].self, from: "scripted/p1", into: context)
            Testing.Issue.record("page 2 failed, the call did not")
        } catch {
            #expect(error is RESTError)
        }
        #expect(try store.sqlite("SELECT id, title FROM Item") == "1|one")
        #expect(first[0].title == "mine")
        #expect(context.hasChanges)
        // The next call is a full one: page 1's new ETag was not kept.
        try await server.script("p2", body: #"[{"id": 2, "title": "two", "tags": []}]"#, headers: [:])
        let again = try await api.fetchReporting([Item].self, from: "scripted/p1", into: context)
        #expect(!again.report.notModified)
        #expect(try store.sqlite("SELECT id, title FROM Item ORDER BY id") == "1|ONE\n2|two")
        #expect(first[0].title == "mine")
    }
}
