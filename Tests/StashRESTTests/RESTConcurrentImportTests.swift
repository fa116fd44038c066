import Foundation
import Stash
import StashREST
import Testing

/// A paged import held in the middle of page 2's decode (a `PacedNote` waiting for a file the
/// test makes), while another container on the same file imports the same pages, or while the
/// import is cancelled: what the store holds after, and what the next fetches ask and keep.
@Suite struct RESTConcurrentImportTests {
    let server: TestServer
    let store: TemporaryStore
    /// The file page 2's decode waits for.
    let go: String

    init() async throws {
        server = try await TestServer.start()
        store = try TemporaryStore()
        go = store.directory.appendingPathComponent("go").path
        let base = server.base.absoluteString
        let link = { (page: String) in ["Link": "<\(base)scripted/\(page)>; rel=\"next\""] }
        try await server.script(
            "p1", body: #"[{"id": 1, "title": "one"}]"#, headers: link("p2").merging(["ETag": "\"1\""]) { $1 })
        try await server.script(
            "p2", body: #"[{"id": 2, "title": "wait for \#(go)"}]"#,
            headers: link("p3").merging(["ETag": "\"2\""]) { $1 })
        try await server.script("p3", body: #"[{"id": 3, "title": "three"}]"#, headers: ["ETag": "\"3\""])
    }

    static func options(_ saving: FetchOptions.Saving) -> FetchOptions {
        var options = FetchOptions()
        options.saving = saving
        return options
    }

    /// How many times page 2 was asked for.
    func page2Asked() async throws -> Int {
        try await server.requests().filter { $0.path == "/scripted/p2" }.count
    }

    func waitForPage2(_ times: Int) async throws {
        for _ in 0..<6_000 {
            if try await page2Asked() >= times { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Testing.Issue.record("page 2 was not asked for \(times) times")
    }

    func rows() throws -> String {
        try store.sqlite(
            #"SELECT group_concat("id" || ':' || "title", ',') FROM (SELECT * FROM "PacedNote" ORDER BY "id")"#)
    }

    func validatorCount() throws -> String {
        // The table is made with the first record.
        try store.sqlite(#"SELECT count(*) FROM "sqlite_master" WHERE "name" = '_stash_http_validators'"#) == "0"
            ? "0" : store.sqlite(#"SELECT count(*) FROM "_stash_http_validators""#)
    }

    /// Two containers on the file import the same pages into an empty store at once, both
    /// held in page 2's decode, then let go: each inserts rows 1 to 3, and the one that saves
    /// second meets the other's rows. Nothing is lost or doubled; the next fetch or the one
    /// after stands on 304s.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func twoContainersImportTheSamePagesAtOnce(saving: FetchOptions.Saving) async throws {
        let server = self.server
        let file = store.file
        let options = Self.options(saving)
        let importing = { @Sendable () async throws -> [Int] in
            let context = ManagedObjectContext(try TemporaryStore.container(at: file))
            return try await testClient(server).fetch(
                [PacedNote].self, from: "scripted/p1", into: context, options: options
            )
            .map(\.id)
        }
        let first = Task { try await importing() }
        try await waitForPage2(1)
        let second = Task { try await importing() }
        try await waitForPage2(2)
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let firstIDs = try await first.value
        let secondIDs = try await second.value
        #expect(firstIDs == [1, 2, 3] && secondIDs == [1, 2, 3])
        #expect(try rows() == "1:one,2:came,3:three")

        let context = ManagedObjectContext(try store.container())
        _ = try await testClient(server).fetch([PacedNote].self, from: "scripted/p1", into: context, options: options)
        let settled = try await testClient(server).fetchReporting(
            [PacedNote].self, from: "scripted/p1", into: context, options: options)
        #expect(settled.report.notModified && settled.value.map(\.id) == [1, 2, 3])
        #expect(try rows() == "1:one,2:came,3:three")
        #expect(try validatorCount() == "3")
    }

    /// Cancelled while page 2 decodes: a whole import saves nothing; one saved per page keeps
    /// page 1's row, and no page's validators (they are written at the end). The next import
    /// fetches every page in full and keeps all three; the one after stands on 304s.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aCancelledImportThenAnother(saving: FetchOptions.Saving) async throws {
        let server = self.server
        let file = store.file
        let options = Self.options(saving)
        let cancelled = Task {
            let context = ManagedObjectContext(try TemporaryStore.container(at: file))
            return try await testClient(server).fetch(
                [PacedNote].self, from: "scripted/p1", into: context, options: options
            )
            .count
        }
        if saving == .perPage {
            // Page 1 saved: its row is there, and page 2's decode waits.
            for _ in 0..<6_000 {
                if try rows() == "1:one" { break }
                try await Task.sleep(for: .milliseconds(10))
            }
        } else {
            try await waitForPage2(1)
        }
        cancelled.cancel()
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        #expect(try rows() == (saving == .perPage ? "1:one" : ""))
        #expect(try validatorCount() == "0")

        let context = ManagedObjectContext(try store.container())
        let asked = try await server.requests().count
        let next = try await testClient(server).fetchReporting(
            [PacedNote].self, from: "scripted/p1", into: context, options: options)
        #expect(!next.report.notModified && next.value.map(\.id) == [1, 2, 3])
        #expect(try await server.requests().dropFirst(asked).map { $0.headers["if-none-match"] } == [nil, nil, nil])
        #expect(try rows() == "1:one,2:came,3:three")
        #expect(try validatorCount() == "3")
        let settled = try await testClient(server).fetchReporting(
            [PacedNote].self, from: "scripted/p1", into: context, options: options)
        #expect(settled.report.notModified && settled.value.map(\.id) == [1, 2, 3])
    }
}
