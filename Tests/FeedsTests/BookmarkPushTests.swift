import Foundation
import Stash
import TestProcesses
import Testing

@testable import Feeds

/// `feeds bookmark add/remove/tag` offline, `feeds bookmarks push` and `feeds status`, run as
/// commands against a store on disk and the demo server's linkding-style API on 127.0.0.1.
@Suite struct BookmarkPushTests {
    let store: URL
    let server: DemoServer
    let api: String

    init() throws {
        store = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feeds-push-\(UUID().uuidString)/feeds.sqlite")
        server = try DemoServer(bookmarks: [
            DemoBookmark(
                id: 1, url: "https://kept.example/one", title: "One", tags: ["sea"],
                dateAdded: Date(timeIntervalSince1970: 1_790_000_000))
        ])
        api = server.baseURL.absoluteString + "api/bookmarks/"
    }

    /// Runs `feeds` with these words on the test's store: exit status, stdout, stderr.
    func run(_ words: [String]) async -> (status: Int32, out: String, err: String) {
        let collected = CollectedOutput()
        let status = await FeedsCommand.run(
            words + ["--store", store.path], environment: [:], output: collected.output)
        return (status, collected.standardOutput, collected.standardError)
    }

    /// The stored bookmarks: URL to linkding's id (`nil` before its POST was answered).
    func remoteIDs() async throws -> [String: Int?] {
        let library = try FeedLibrary(storeURL: store)
        return try await library.container.performBackgroundTask { context in
            var ids: [String: Int?] = [:]
            for bookmark in try context.fetch(FetchDescriptor<Bookmark>()) { ids[bookmark.url] = bookmark.remoteID }
            return ids
        }
    }

    func held(_ url: String) -> DemoBookmark? { server.bookmarks.first { $0.url == url } }

    func cleanUp() {
        server.stop()
        try? FileManager.default.removeItem(at: store.deletingLastPathComponent())
    }

    @Test func aBookmarkAddedOfflineIsPushedAndTheRowGetsTheServersID() async throws {
        defer { cleanUp() }
        let added = await run(["bookmark", "add", "https://new.example/a", "--tag", "Swift", "--note", "later"])
        #expect(added.status == 0, "\(added.err)")
        #expect(server.requestLog.isEmpty)
        #expect(await run(["status"]).out == "1 change waiting to be pushed\n")
        #expect(try await remoteIDs() == ["https://new.example/a": nil])

        let pushed = await run(["bookmarks", "push", api])
        #expect(pushed.status == 0, "\(pushed.err)")
        #expect(pushed.out == "Pushed 1 change to \(api); nothing waiting\n")
        let made = try #require(held("https://new.example/a"))
        #expect(made.id == 2 && made.tags == ["swift"] && made.notes == "later")
        #expect(try await remoteIDs() == ["https://new.example/a": 2])
        #expect(server.requestLog == ["POST /api/bookmarks/ 201"])
        let status = await run(["status"])
        #expect(status.out == "Nothing waiting to be pushed\nBookmarks API: \(api)\n")
        // The API is remembered: a push without a URL goes there, and has nothing to send.
        let again = await run(["bookmarks", "push"])
        #expect(again.status == 0 && again.out == "Pushed 0 changes to \(api); nothing waiting\n")
    }

    @Test func aTagAddedHereReachesTheServersTagNames() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmarks", "import", api]).status == 0)
        let tagged = await run(["bookmark", "tag", "https://kept.example/one", "--tag", "Tides"])
        #expect(tagged.status == 0, "\(tagged.err)")
        #expect(tagged.out == "Bookmarked https://kept.example/one #sea #tides\n")
        #expect(await run(["status"]).out.hasPrefix("1 change waiting to be pushed\n"))

        let pushed = await run(["bookmarks", "push"])
        #expect(pushed.status == 0, "\(pushed.err)")
        #expect(held("https://kept.example/one")?.tags == ["sea", "tides"])
        #expect(server.requestLog.last == "PATCH /api/bookmarks/1/ 200")
        #expect(await run(["bookmark", "tag", "https://gone.example/", "--tag", "x"]).status == 1)
    }

    @Test func aBookmarkRemovedHereIsDeletedOnTheServer() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmarks", "import", api]).status == 0)
        #expect(await run(["bookmark", "remove", "https://kept.example/one"]).status == 0)
        #expect(held("https://kept.example/one") != nil)
        let pushed = await run(["bookmarks", "push", api])
        #expect(pushed.status == 0, "\(pushed.err)")
        #expect(held("https://kept.example/one") == nil && server.bookmarks.isEmpty)
        #expect(server.requestLog.last == "DELETE /api/bookmarks/1/ 204")
        #expect(try await remoteIDs().isEmpty)
    }

    @Test func aChangeTheServerRefusesWaitsWithItsMessageInStatusTextAndJSON() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmark", "add", "https://new.example/b", "--tag", "read later"]).status == 0)
        #expect(await run(["bookmark", "add", "https://new.example/c"]).status == 0)
        let pushed = await run(["bookmarks", "push", api])
        #expect(pushed.status == 1)
        #expect(pushed.out.hasPrefix("Pushed 1 change to \(api); 1 failed; 1 change waiting\n  failed: "))
        #expect(pushed.out.contains("https://new.example/b (POST, 400): "))
        #expect(pushed.out.contains("Tag names may not contain spaces"))
        #expect(held("https://new.example/b") == nil && held("https://new.example/c") != nil)

        let status = await run(["status"])
        #expect(status.out.hasPrefix("1 change waiting to be pushed (1 refused: https://new.example/b: HTTP 400: "))
        #expect(status.out.contains("Tag names may not contain spaces"))
        let json = await run(["status", "--json"])
        #expect(json.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json.out)")
        #expect(object["waiting"] as? Int == 1)
        #expect(object["api"] as? String == api)
        let refused = try #require(object["refused"] as? [[String: Any]])
        #expect(refused.count == 1)
        #expect(refused.first?["url"] as? String == "https://new.example/b")
        #expect(refused.first?["method"] as? String == "POST")
        #expect((refused.first?["message"] as? String)?.hasPrefix("HTTP 400: ") == true)
        #expect(try await remoteIDs() == ["https://new.example/b": nil, "https://new.example/c": 2])
    }

    @Test func aPushThatCannotReachTheServerLeavesEverythingWaiting() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmarks", "import", api]).status == 0)
        #expect(await run(["bookmark", "add", "https://new.example/d"]).status == 0)
        #expect(await run(["bookmark", "remove", "https://kept.example/one"]).status == 0)
        server.stop()
        let pushed = await run(["bookmarks", "push"])
        #expect(pushed.status == 1)
        #expect(pushed.out.hasPrefix("Pushed 0 changes to \(api); 2 failed; 2 changes waiting\n"))
        #expect(await run(["status"]).out.hasPrefix("2 changes waiting to be pushed\n"))
        #expect(try await remoteIDs() == ["https://new.example/d": nil])
    }

    @Test func anImportPushesWhatWaitsFirstAndBringsItBackWithItsID() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmark", "add", "https://new.example/e", "--tag", "swift"]).status == 0)
        let imported = await run(["bookmarks", "import", api])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.hasPrefix("Pushed 1 change to \(api); nothing waiting\nImported 1 bookmark (1 new"))
        #expect(try await remoteIDs() == ["https://new.example/e": 2, "https://kept.example/one": 1])
        #expect(server.requestLog.first == "POST /api/bookmarks/ 201")
        #expect(await run(["status"]).out.hasPrefix("Nothing waiting to be pushed\n"))
    }

    /// A store imported from before linkding's ids were kept: its bookmarks have none, so a
    /// tag change or a deletion cannot be sent until an import brings the ids; the import
    /// pushes them after its pull (a deletion finds the id in the copy the pull brought back,
    /// which goes with it).
    @Test func changesWaitingForAnIdArePushedAfterTheImportThatBringsIt() async throws {
        defer { cleanUp() }
        #expect(await run(["bookmark", "add", "https://kept.example/two"]).status == 0)
        #expect(await run(["bookmarks", "push", api]).status == 0)
        #expect(await run(["bookmarks", "import", api]).status == 0)
        let sqlite = try ChildProcess("/usr/bin/env", ["sqlite3", store.path, "UPDATE Bookmark SET remoteID = NULL"])
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        #expect(await run(["bookmark", "tag", "https://kept.example/one", "--tag", "tides"]).status == 0)
        #expect(await run(["bookmark", "remove", "https://kept.example/two"]).status == 0)

        let pushed = await run(["bookmarks", "push"])
        #expect(pushed.status == 1)
        #expect(pushed.out.hasPrefix("Pushed 0 changes to \(api); 2 failed; 2 changes waiting\n"))
        #expect(pushed.out.contains("the server's key for it is not known yet"))
        #expect(held("https://kept.example/one")?.tags == ["sea"])

        let imported = await run(["bookmarks", "import", api])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.hasPrefix("Pushed 2 changes to \(api); nothing waiting\n"), "\(imported.out)")
        #expect(held("https://kept.example/one")?.tags == ["sea", "tides"])
        #expect(held("https://kept.example/two") == nil)
        #expect(
            server.requestLog.suffix(2).sorted() == ["DELETE /api/bookmarks/2/ 204", "PATCH /api/bookmarks/1/ 200"])
        #expect(try await remoteIDs() == ["https://kept.example/one": 1])
    }
}
