import Feeds
import Foundation
import Testing

/// Bookmarks, OPML, where the store is, and usage errors, run as the built binary.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndBookmarksTests {
    @Test func bookmarksTagsNotesAndOneBookmarkPerURLWhateverTheCaseOfSchemeAndHost() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let added = try store.run([
            "bookmark", "add", "https://Harbour.Example/Tides", "--tag", "Swift", "--tag", "swift", "--note",
            "read \"twice\"\nthen\tshare \\ é",
        ])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput == "Bookmarked https://harbour.example/Tides #swift\n")
        #expect(try store.count("SELECT count(*) FROM Tag") == 1)

        // The same bookmark: only the scheme and host differ in case. Its tags grow.
        let again = try store.run(["bookmark", "add", "HTTPS://HARBOUR.EXAMPLE/Tides", "--tag", "Linux"])
        #expect(again.status == 0)
        #expect(try store.count("SELECT count(*) FROM Bookmark") == 1)
        // The path's case matters: another page.
        #expect(try store.run(["bookmark", "add", "https://harbour.example/tides", "--tag", "sea"]).status == 0)
        #expect(try store.count("SELECT count(*) FROM Bookmark") == 2)

        let result = try store.run(["bookmarks", "--tag", "SWIFT", "--json"])
        #expect(result.status == 0)
        #expect(try objectKeys(result.standardOutput) == [["url", "title", "note", "tags", "created"]])
        let swift = try JSONDecoder().decode([ListedBookmark].self, from: Data(result.standardOutput.utf8))
        #expect(swift.map(\.url) == ["https://harbour.example/Tides"])
        #expect(swift.map(\.tags) == [["linux", "swift"]])
        #expect(swift.map(\.note) == ["read \"twice\"\nthen\tshare \\ é"])
        let created = try #require(swift.first?.created)
        let date = try #require(try? Date(created, strategy: .iso8601), "\(created)")
        #expect(abs(date.timeIntervalSinceNow) < 120)
        #expect(created.hasSuffix("Z"))

        #expect(try store.json([ListedBookmark].self, ["bookmarks"]).count == 2)
        #expect(try store.json([ListedBookmark].self, ["bookmarks", "--tag", "nothing"]).isEmpty)

        let removed = try store.run(["bookmark", "remove", "https://HARBOUR.example/Tides"])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try store.json([ListedBookmark].self, ["bookmarks"]).map(\.url) == ["https://harbour.example/tides"])
        let missing = try store.run(["bookmark", "remove", "https://harbour.example/Tides"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("https://harbour.example/Tides"))
    }

    static let apiBookmarks = (1...5).map { index in
        DemoBookmark(
            id: index, url: "https://api\(index).example/page", title: "Bookmark \(index)", notes: "note \(index)",
            tags: index.isMultiple(of: 2) ? ["Swift", "even"] : ["swift"],
            dateAdded: Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 86_400))
    }

    @Test func bookmarksImportFollowsEveryPageWithTheToken() throws {
        let server = try DemoServer(bookmarks: Self.apiBookmarks, token: "s3cret")
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "api/bookmarks/?limit=2"

        let result = try store.run(["bookmarks", "import", url, "--token", "s3cret"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "Imported 5 bookmarks (5 new, 0 updated) in 3 pages from \(url)\n")
        #expect(server.requestLog.filter { $0.hasSuffix(" 200") }.count == 3)
        let bookmarks = try store.json([ListedBookmark].self, ["bookmarks", "--tag", "SWIFT"])
        #expect(bookmarks.map(\.url) == (1...5).reversed().map { "https://api\($0).example/page" })
        #expect(bookmarks.first?.title == "Bookmark 5")
        #expect(bookmarks.first?.note == "note 5")
        #expect(bookmarks.first?.created == "2026-09-26T14:13:20Z")
        #expect(try store.count("SELECT count(*) FROM Tag") == 2)

        // Again: the same five, updated in place.
        #expect(try store.run(["bookmarks", "import", url, "--token", "s3cret"]).status == 0)
        #expect(try store.count("SELECT count(*) FROM Bookmark") == 5)
    }

    @Test func bookmarksImportWithAWrongTokenStoresNothing() throws {
        let server = try DemoServer(bookmarks: Self.apiBookmarks, token: "s3cret")
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "api/bookmarks/"
        for token in [["--token", "wrong"], []] {
            let result = try store.run(["bookmarks", "import", url] + token)
            #expect(result.status == 1)
            #expect(result.standardOutput == "")
            #expect(result.standardError.contains(url), "\(result.standardError)")
            #expect(result.standardError.contains("401"), "\(result.standardError)")
            #expect(!result.standardError.contains("s3cret"))
        }
        #expect(try store.count("SELECT count(*) FROM Bookmark") == 0)
        #expect(try store.count("SELECT count(*) FROM Tag") == 0)
    }

    @Test func opmlRoundTripsFoldersTitlesAndURLsIntoAFreshStore() throws {
        let first = try EndToEndStore()
        defer { first.remove() }
        let second = try EndToEndStore()
        defer { second.remove() }
        let opml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0"><head><title>Mine</title></head><body>
              <outline text="Tech">
                <outline text="Swift &amp; more">
                  <outline type="rss" text="Swift Notes" title="Swift Notes" xmlUrl="https://swiftnotes.example/feed.xml" htmlUrl="https://swiftnotes.example/"/>
                </outline>
                <outline type="rss" text="Linux &quot;Corner&quot; &lt;Q&amp;A&gt; ' é" xmlUrl="https://linuxcorner.example/atom.xml?a=1&amp;b=2"/>
              </outline>
              <outline type="rss" text="Garden Log" xmlUrl="https://gardenlog.example/feed.json"/>
            </body></opml>
            """
        let file = first.folder.appendingPathComponent("in.opml")
        try Data(opml.utf8).write(to: file)
        let imported = try first.run(["opml", "import", file.path])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "Imported 3 feeds in 2 folders from \(file.path)\n")

        let exported = try first.run(["opml", "export"])
        #expect(exported.status == 0)
        let copy = second.folder.appendingPathComponent("out.opml")
        try Data(exported.standardOutput.utf8).write(to: copy)
        #expect(try second.run(["opml", "import", copy.path]).status == 0)
        #expect(try second.run(["opml", "export"]).standardOutput == exported.standardOutput)
        // Importing the same file again changes nothing.
        let again = try second.run(["opml", "import", copy.path])
        #expect(again.standardOutput == "Imported 0 feeds in 0 folders from \(copy.path)\n")
        #expect(try second.count("SELECT count(*) FROM Feed") == 3)
        #expect(try second.count("SELECT count(*) FROM Folder") == 2)

        let folders =
            "SELECT f.url || ' ' || f.title || ' ' || coalesce(d.path, '-') FROM Feed f LEFT JOIN Folder d ON d.rowid = f.folder ORDER BY f.url"
        let expected = """
            https://gardenlog.example/feed.json Garden Log -
            https://linuxcorner.example/atom.xml?a=1&b=2 Linux "Corner" <Q&A> ' é Tech
            https://swiftnotes.example/feed.xml Swift Notes Tech/Swift & more
            """
        #expect(try first.sql(folders) == expected)
        #expect(try second.sql(folders) == expected)
        #expect(exported.standardOutput.contains("Swift &amp; more"))
    }

    /// `--store` before or after the command, `FEEDS_STORE`, `XDG_DATA_HOME`, then `HOME`.
    @Test func theStoreIsFoundWhereTheIssueSays() throws {
        let scratch = try EndToEndStore()
        defer { scratch.remove() }
        let folder = scratch.folder
        func bookmarks(in path: String) throws -> String {
            try EndToEndStore.sqlite(path, "SELECT group_concat(url, ' ') FROM (SELECT url FROM Bookmark ORDER BY url)")
        }
        let option = folder.appendingPathComponent("option.sqlite").path
        let environment = folder.appendingPathComponent("env.sqlite").path
        let xdg = folder.appendingPathComponent("xdg")
        let home = folder.appendingPathComponent("home")

        #expect(try FeedsBinary.run(["--store", option, "bookmark", "add", "https://a.example/"]).status == 0)
        #expect(try FeedsBinary.run(["bookmark", "add", "https://b.example/", "--store", option]).status == 0)
        #expect(try FeedsBinary.run(["bookmark", "add", "--store=\(option)", "https://c.example/"]).status == 0)
        // The option beats the environment.
        #expect(
            try FeedsBinary.run(
                ["bookmark", "add", "https://d.example/", "--store", option], environment: ["FEEDS_STORE": environment]
            ).status == 0)
        #expect(
            try bookmarks(in: option) == "https://a.example/ https://b.example/ https://c.example/ https://d.example/")
        // A path with spaces and non-ASCII letters, in a folder not made yet.
        let odd = folder.appendingPathComponent("my stores/ünïcode ☃/feeds.sqlite").path
        #expect(try FeedsBinary.run(["bookmark", "add", "https://h.example/", "--store", odd]).status == 0)
        #expect(try bookmarks(in: odd) == "https://h.example/")

        #expect(
            try FeedsBinary.run(
                ["bookmark", "add", "https://e.example/"],
                environment: ["FEEDS_STORE": environment, "XDG_DATA_HOME": xdg.path]
            ).status == 0)
        #expect(try bookmarks(in: environment) == "https://e.example/")

        #expect(
            try FeedsBinary.run(
                ["bookmark", "add", "https://f.example/"], environment: ["FEEDS_STORE": "", "XDG_DATA_HOME": xdg.path]
            ).status == 0)
        #expect(try bookmarks(in: xdg.appendingPathComponent("feeds/feeds.sqlite").path) == "https://f.example/")

        // A relative XDG_DATA_HOME is ignored, as the XDG spec says: HOME's default is used.
        #expect(
            try FeedsBinary.run(
                ["bookmark", "add", "https://g.example/"],
                environment: ["FEEDS_STORE": "", "XDG_DATA_HOME": "relative/data", "HOME": home.path]
            ).status == 0)
        #expect(
            try bookmarks(in: home.appendingPathComponent(".local/share/feeds/feeds.sqlite").path)
                == "https://g.example/")
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["list", "--bogus"], "unknown option --bogus"),
        (["add"], "missing argument URL"),
        (["search"], "missing argument TEXT"),
        (["bookmark"], "'bookmark' needs one of"),
        (["bookmark", "add", "https://a.example/", "--tag"], "--tag needs a value"),
        (["entries", "--limit", "0"], "--limit must be a positive whole number"),
        (["entries", "--limit", "-3"], "--limit"),
        (["entries", "--since", "2026-13-01"], "--since must be an ISO 8601"),
        (["list", "extra"], "unexpected argument 'extra'"),
        (["--store"], "--store needs a value"),
        ([], "no command given"),
        (["read", "1", "--feed", "https://a.example/"], "unexpected argument '1' with --feed"),
        (["-v"], "unknown option -v"),
    ])
    func aUsageErrorExitsTwoWithAMessage(_ arguments: [String], _ message: String) throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let result = try store.run(arguments)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("feeds: "), "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        // Nothing was opened or made.
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }
}
