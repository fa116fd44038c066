import Feeds
import Foundation
import Testing

/// What a hostile user (or a hostile feed) does to the built `feeds`: two processes on one
/// store, a process killed midway, look-alike Unicode, scripts in entries.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndAttackTests {
    typealias Item = EndToEndDocuments.Item

    /// `count` feeds of `entries` entries each at /f0.xml, /f1.xml...: each answer takes `delay`.
    static func server(feeds count: Int, entries: Int, delay: Duration) throws -> DemoServer {
        try DemoServer { _ in
            var resources: [String: DemoResource] = [:]
            for feed in 0..<count {
                let items = (0..<entries).map { index in
                    Item(
                        id: "f\(feed)-e\(index)", title: "Feed \(feed) entry \(index)",
                        date: "2026-11-0\(1 + index % 9)T10:\(10 + index % 50):00Z",
                        html: "<p>Body \(index) of \(feed).</p>")
                }
                var resource = DemoResource(
                    contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: "Feed \(feed)", items: items)
                )
                resource.delay = delay
                resources["/f\(feed).xml"] = resource
            }
            return resources
        }
    }

    /// Subscribes to the server's feeds without fetching them (OPML import).
    static func subscribe(_ store: EndToEndStore, to server: DemoServer, feeds count: Int) throws {
        let outlines = (0..<count).map {
            "<outline type=\"rss\" text=\"Feed \($0)\" xmlUrl=\"\(server.baseURL.absoluteString)f\($0).xml\"/>"
        }
        let file = store.folder.appendingPathComponent("subscriptions.opml")
        try Data(
            "<?xml version=\"1.0\"?><opml version=\"2.0\"><head/><body>\(outlines.joined())</body></opml>".utf8
        ).write(to: file)
        let imported = try store.run(["opml", "import", file.path])
        try #require(imported.status == 0, "\(imported.standardError)")
    }

    @Test func twoRefreshesAtOnceOnOneStoreStoreEachEntryOnce() throws {
        let server = try Self.server(feeds: 6, entries: 15, delay: .milliseconds(60))
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        try Self.subscribe(store, to: server, feeds: 6)

        let first = try store.start(["refresh", "--json"])
        let second = try store.start(["refresh", "--json"])
        for run in [try first.finish(), try second.finish()] {
            #expect(run.reason == .exit, "killed by a signal: \(run.standardError)")
            #expect(run.status == 0 || run.status == 1)
            if run.status != 0 {
                // A clear error: each failure named on stderr, the JSON still whole.
                #expect(run.standardError.hasPrefix("feeds: "), "\(run.standardError)")
                #expect(!run.standardError.contains("Fatal error"))
            }
            #expect(throws: Never.self) {
                try JSONDecoder().decode(RefreshJSON.self, from: Data(run.standardOutput.utf8))
            }
        }
        #expect(try store.sql("PRAGMA integrity_check") == "ok")
        #expect(try store.sql("PRAGMA foreign_key_check") == "")
        #expect(try store.duplicateEntries() == 0)
        #expect(try store.count("SELECT count(*) FROM Entry") == 6 * 15)
        #expect(try store.count("SELECT count(*) FROM Feed") == 6)
        // And the store is fine for the next run.
        let after = try store.run(["refresh", "--json"])
        #expect(after.status == 0, "\(after.standardError)")
        #expect(try store.count("SELECT count(*) FROM Entry") == 6 * 15)
    }

    /// SIGKILL in the middle of a refresh of many feeds: the store opens, passes SQLite's
    /// check, and each feed has all its entries or none.
    @Test func aRefreshKilledMidwayLeavesNoPartialFeed() throws {
        let feeds = 12
        let entries = 25
        let server = try Self.server(feeds: feeds, entries: entries, delay: .milliseconds(120))
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        try Self.subscribe(store, to: server, feeds: feeds)

        let running = try store.start(["refresh"])
        let deadline = Date().addingTimeInterval(20)
        while server.requestLog.count < 5, Date() < deadline { usleep(2_000) }
        running.killHard()
        let killed = try running.finish()
        #expect(killed.reason == .uncaughtSignal, "the refresh ended before it was killed")
        #expect(server.requestLog.count < feeds, "\(server.requestLog)")

        #expect(try store.sql("PRAGMA integrity_check") == "ok")
        #expect(try store.sql("PRAGMA foreign_key_check") == "")
        let partial = try store.sql(
            """
            SELECT group_concat(url || '=' || n) FROM (SELECT f.url AS url, count(e._pk) AS n FROM Feed f
            LEFT JOIN Entry e ON e.feed = f._pk GROUP BY f._pk HAVING n NOT IN (0, \(entries)))
            """)
        #expect(partial == "")
        let listed = try store.json([ListedFeed].self, ["list"])
        #expect(listed.count == feeds)
        #expect(listed.allSatisfy { $0.entries == 0 || $0.entries == entries })

        // The next refresh finishes the job, storing nothing twice.
        let again = try store.run(["refresh"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try store.count("SELECT count(*) FROM Entry") == feeds * entries)
        #expect(try store.duplicateEntries() == 0)
        #expect(try store.sql("PRAGMA integrity_check") == "ok")
    }

    /// Hosts are compared as IDNA compares them (the URL is stored with its host in
    /// punycode): case, fullwidth letters, `ſ` and combining accents in a host lead to the
    /// same site, so to one bookmark; a Cyrillic look-alike is another site and stays
    /// apart, visibly (`xn--`). Paths are compared as written (percent-encoded).
    @Test func lookAlikeHostsAreOneBookmarkOnlyWhenTheyAreOneHost() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let urls = [
            "https://ÉCOLE.example/a", "https://école.example/a", "https://e\u{301}cole.example/a",
            "https://ｅｘａｍｐｌｅ.com/a", "https://EXAMPLE.com/a", "https://ſwift.example/a", "https://swift.example/a",
            "https://ex\u{430}mple.com/a", "https://x.example/caf\u{E9}", "https://x.example/cafe\u{301}",
        ]
        for url in urls {
            let result = try store.run(["bookmark", "add", url])
            #expect(result.status == 0, "\(url): \(result.standardError)")
        }
        #expect(
            try store.json([ListedBookmark].self, ["bookmarks"]).map(\.url).sorted() == [
                "https://example.com/a", "https://swift.example/a", "https://x.example/caf%C3%A9",
                "https://x.example/cafe%CC%81", "https://xn--cole-9oa.example/a", "https://xn--exmple-4nf.com/a",
            ])
    }

    /// Tags are one when Unicode case folding and NFC make them one (as the README says:
    /// `ſ` folds to `s`, `ß` to `ss`); fullwidth letters are other characters, so
    /// `ＳＷＩＦＴ` is a tag of its own, the same whatever its case.
    @Test func lookAlikeTagsFollowCaseFoldingAndNFC() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let add: [(String, [String])] = [
            ("https://one.example/", ["Swift", "ſwift", " SWIFT "]),
            ("https://two.example/", ["caf\u{E9}", "cafe\u{301}", "CAF\u{C9}"]),
            ("https://three.example/", ["ＳＷＩＦＴ", "ｓｗｉｆｔ"]),
            ("https://four.example/", ["Straße", "STRASSE"]),
        ]
        for (url, tags) in add {
            let result = try store.run(["bookmark", "add", url] + tags.flatMap { ["--tag", $0] })
            #expect(result.status == 0, "\(result.standardError)")
        }
        #expect(try store.count("SELECT count(*) FROM Tag") == 4)
        func tagged(_ tag: String) throws -> [String] {
            try store.json([ListedBookmark].self, ["bookmarks", "--tag", tag]).map(\.url)
        }
        #expect(try tagged("ſWIFT") == ["https://one.example/"])
        #expect(try tagged("CAFE\u{301}") == ["https://two.example/"])
        #expect(try tagged("Ｓｗｉｆｔ") == ["https://three.example/"])
        #expect(try tagged("strasse") == ["https://four.example/"])
        #expect(try store.json([ListedBookmark].self, ["bookmarks", "--tag", "cafe"]).isEmpty)
        #expect(
            try store.sql("SELECT group_concat(name, ' ') FROM (SELECT name FROM Tag ORDER BY name)")
                == "caf\u{E9} strasse swift ｓｗｉｆｔ")
    }

    /// A feed whose entries carry scripts, handlers, frames and `javascript:` links: none of
    /// it is stored or printed.
    @Test func scriptsAndJavascriptLinksAreNeverShown() throws {
        let hostile = """
            <p>Safe text</p><script>alert('s1')</script><a href="javascript:alert('s2')">click</a>\
            <img src="https://img.example/x.png" onerror="alert('s3')"><iframe src="https://evil.example/"></iframe>\
            <a href="JaVaScRiPt:alert('s4')">two</a><a href="&#106;avascript:alert('s5')">three</a>\
            <a href=" javascript:alert('s6')">four</a><svg onload="alert('s7')"></svg>\
            <div style="background:url(javascript:alert('s8'))">styled</div><SCRIPT SRC="https://evil.example/x.js"></SCRIPT>
            """
        let items = [
            Item(
                id: "x1", title: "Hello <script>alert('t')</script>world", date: "2026-11-01T00:00:00Z", html: hostile,
                link: "javascript:alert('link')"),
            Item(id: "x2", title: "Local", date: "2026-11-02T00:00:00Z", html: "<p>l</p>", link: "file:///etc/passwd"),
            Item(
                id: "x3", title: "Data", date: "2026-11-03T00:00:00Z", html: "<p>d</p>",
                link: "data:text/html,<script>alert('d')</script>"),
        ]
        let server = try DemoServer { _ in
            [
                "/x.xml": DemoResource(
                    contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: "Hostile", items: items))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        #expect(try store.run(["add", server.baseURL.absoluteString + "x.xml"]).status == 0)
        let entries = try store.json([ListedEntry].self, ["entries"])
        #expect(entries.map(\.title) == ["Data", "Local", "Hello world"])
        #expect(entries.map(\.link) == [nil, nil, nil])
        let entry = try #require(entries.last)
        #expect(!entry.title.contains("<"))
        #expect(!entry.title.contains("alert"))

        let shown = try store.run(["show", String(entry.id)])
        #expect(shown.status == 0)
        #expect(shown.standardOutput.contains("Safe text"))
        #expect(shown.standardOutput.contains("click"))
        let printed = shown.standardOutput.lowercased()
        for banned in ["<script", "alert", "javascript", "onerror", "onload", "iframe", "evil.example"] {
            #expect(!printed.contains(banned), "\(banned) in: \(shown.standardOutput)")
        }
        let stored = try store.sql(
            "SELECT lower(coalesce(summary, '') || coalesce(content, '') || text || coalesce(link, '')) FROM Entry")
        for banned in ["<script", "javascript:", "onerror", "onload", "<iframe", "alert("] {
            #expect(!stored.contains(banned), "\(banned) stored: \(stored)")
        }
    }

    /// An external entity in a feed or an OPML file is never fetched: no local file's text
    /// reaches the store or the output.
    @Test func externalEntitiesAreNeverRead() throws {
        let secret = try EndToEndStore()
        defer { secret.remove() }
        let secretFile = secret.folder.appendingPathComponent("secret.txt")
        try Data("TOPSECRET-4242".utf8).write(to: secretFile)
        let rss = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY leak SYSTEM "file://\(secretFile.path)">]>
            <rss version="2.0"><channel><title>Leak &leak;</title><link>https://leak.example/</link>
            <item><guid>l1</guid><title>Item &leak;</title><description>Body &leak;</description></item>
            </channel></rss>
            """
        let server = try DemoServer { _ in ["/leak.xml": DemoResource(contentType: "application/rss+xml", text: rss)] }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let added = try store.run(["add", server.baseURL.absoluteString + "leak.xml"])
        #expect(!(added.standardOutput + added.standardError).contains("TOPSECRET"))
        let everything = try store.run(["entries", "--json"]).standardOutput + store.run(["list"]).standardOutput
        #expect(!everything.contains("TOPSECRET"))
        let opml = store.folder.appendingPathComponent("leak.opml")
        try Data(
            """
            <?xml version="1.0"?>
            <!DOCTYPE opml [<!ENTITY leak SYSTEM "file://\(secretFile.path)">]>
            <opml version="2.0"><head/><body><outline text="&leak;" xmlUrl="https://leak.example/&leak;"/></body></opml>
            """.utf8
        ).write(to: opml)
        let imported = try store.run(["opml", "import", opml.path])
        #expect(!(imported.standardOutput + imported.standardError).contains("TOPSECRET"))
        #expect(!(try store.run(["opml", "export"]).standardOutput.contains("TOPSECRET")))
        #expect(
            try store.count("SELECT count(*) FROM Feed WHERE url LIKE '%TOPSECRET%' OR title LIKE '%TOPSECRET%'") == 0)
    }

    /// An OPML file that names a feed by a `javascript:` or `file:` URL is refused whole.
    @Test func anOPMLFileWithANonWebURLStoresNothing() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        for bad in ["javascript:alert(1)", "file:///etc/passwd", "data:text/xml,<rss/>"] {
            let file = store.folder.appendingPathComponent("bad.opml")
            try Data(
                """
                <?xml version="1.0"?><opml version="2.0"><head/><body>
                <outline text="Good" xmlUrl="https://good.example/feed.xml"/>
                <outline text="Bad" xmlUrl="\(EndToEndDocuments.escaped(bad))"/></body></opml>
                """.utf8
            ).write(to: file)
            let result = try store.run(["opml", "import", file.path])
            #expect(result.status == 1, "\(bad)")
            #expect(result.standardError.contains(bad), "\(result.standardError)")
            #expect(try store.count("SELECT count(*) FROM Feed") == 0)
        }
    }

    /// Whatever a feed sends, the human output writes no control character but newline and
    /// tab: no terminal escape (clear screen, window title, colours) reaches the terminal.
    @Test func terminalEscapesFromAFeedAreNeverPrinted() throws {
        let (server, store) = try EndToEndHostileFeeds.controlCharacters()
        defer {
            server.stop()
            store.remove()
        }
        let id = try #require(try store.json([ListedEntry].self, ["entries"]).first?.id)
        let runs = [
            try store.run(["list"]), try store.run(["entries"]), try store.run(["show", String(id)]),
            try store.run(["search", "body"]), try store.run(["opml", "export"]),
        ]
        #expect(runs.allSatisfy { $0.status == 0 })
        let printed = runs.map(\.standardOutput).joined()
        #expect(printed.contains("Eve"))
        #expect(printed.contains("ALERT"))
        let controls = printed.unicodeScalars.filter {
            $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t"
        }
        #expect(controls.isEmpty, "\(controls.map { String($0.value, radix: 16) })")
        // JSON escapes them instead: the value is kept, the output is still inert.
        let json = try store.run(["entries", "--json"]).standardOutput
        #expect(!json.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
    }

    /// `--store` at a file that is not a feeds store (a text file, another program's SQLite
    /// database, a folder): exit 1 naming it, and the file is left as it was.
    @Test func aStoreThatIsNotFeedsIsLeftUntouched() throws {
        let scratch = try EndToEndStore()
        defer { scratch.remove() }
        let text = scratch.folder.appendingPathComponent("notes.txt")
        try Data("precious\n".utf8).write(to: text)
        let foreign = scratch.folder.appendingPathComponent("accounts.db")
        _ = try EndToEndStore.sqlite(
            foreign.path,
            "CREATE TABLE Accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO Accounts VALUES (1, 'ada')")
        for path in [text.path, foreign.path, scratch.folder.path] {
            let result = try FeedsBinary.run(["--store", path, "bookmark", "add", "https://a.example/"])
            #expect(result.status == 1, "\(path)")
            #expect(
                result.standardError.hasPrefix("feeds: cannot open the store at \(path)"), "\(result.standardError)")
        }
        #expect(try String(contentsOf: text, encoding: .utf8) == "precious\n")
        #expect(try EndToEndStore.sqlite(foreign.path, ".tables") == "Accounts")
        #expect(try EndToEndStore.sqlite(foreign.path, "SELECT name FROM Accounts") == "ada")
    }

    /// `feeds remove` while a refresh is fetching that feed: the feed is not brought back,
    /// no entry is left without its feed, and the refresh ends with a status, not a crash.
    @Test func aFeedRemovedDuringARefreshStaysRemoved() throws {
        let server = try Self.server(feeds: 2, entries: 5, delay: .milliseconds(400))
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        try Self.subscribe(store, to: server, feeds: 2)
        let url = server.baseURL.absoluteString + "f0.xml"

        let refresh = try store.start(["refresh", "--json"])
        usleep(150_000)
        let removed = try store.run(["remove", url])
        #expect(removed.status == 0, "\(removed.standardError)")
        let run = try refresh.finish(within: 20)
        #expect(run.reason == .exit)
        #expect(run.status == 0 || run.status == 1, "\(run.standardError)")

        #expect(try store.sql("SELECT url FROM Feed") == server.baseURL.absoluteString + "f1.xml")
        #expect(
            try store.count("SELECT count(*) FROM Entry WHERE feed IS NULL OR feed NOT IN (SELECT _pk FROM Feed)") == 0)
        #expect(try store.sql("PRAGMA foreign_key_check") == "")
        #expect(try store.count("SELECT count(*) FROM Entry") == 5)
    }

    /// A title or an author that holds line breaks cannot print a line of its own: no fake
    /// row in `entries`, no fake field in `show`.
    @Test func lineBreaksFromAFeedCannotForgeRowsOrFields() throws {
        let item: [String: Any] = [
            "id": "1", "title": "Real one\n   99  2026-11-01 10:00  N   Fake entry", "content_html": "<p>x</p>",
            "date_published": "2026-11-01T00:00:00Z", "authors": [["name": "Eve\r\nFeed:      https://evil.example/"]],
        ]
        let feed: [String: Any] = ["version": "https://jsonfeed.org/version/1.1", "title": "Lines", "items": [item]]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: feed), as: UTF8.self)
        let server = try DemoServer { _ in
            ["/lines.json": DemoResource(contentType: "application/feed+json", text: json)]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "lines.json"
        #expect(try store.run(["add", url]).status == 0)
        let id = try #require(try store.json([ListedEntry].self, ["entries"]).first?.id)

        let entries = try store.run(["entries"]).standardOutput
        #expect(entries.split(separator: "\n").count == 1, "\(entries)")
        let shown = try store.run(["show", String(id)]).standardOutput
        #expect(shown.split(separator: "\n").filter { $0.hasPrefix("Feed:") } == ["Feed:      \(url)"], "\(shown)")
        // Kept on one line in the store: line breaks and runs of spaces are one space.
        #expect(shown.contains("Author:    Eve Feed: https://evil.example/\n"), "\(shown)")
    }
}
