import Feeds
import Foundation
import Testing

/// `feeds entries`, `show`, `read`/`unread`/`star`/`unstar`, `delete` and `search`, run as
/// the built binary.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndEntriesTests {
    typealias Item = EndToEndDocuments.Item

    /// Two feeds: an RSS one with entries either side of 2026-11-05T00:00Z, and a JSON Feed
    /// with one dated and one undated item.
    struct Fixture {
        let server: DemoServer
        let store: EndToEndStore
        let rss: String
        let json: String

        init() throws {
            let rssItems = [
                Item(
                    id: "r1", title: "Early", date: "2026-11-03T09:00:00Z", html: "<p>early</p>",
                    link: "https://harbour.example/early"),
                Item(
                    id: "r2", title: "<b>Bold</b> &amp; bright", date: "2026-11-04T23:30:00Z",
                    html: "<p>just before</p>",
                    link: "https://harbour.example/bold"),
                Item(
                    id: "r3", title: "Midnight", date: "2026-11-05T00:00:00Z", html: "<p>on the dot</p>",
                    link: "https://harbour.example/midnight"),
                Item(
                    id: "r4", title: "Late", date: "2026-11-06T18:45:00Z", html: "<p>late</p>",
                    link: "https://harbour.example/late"),
            ]
            let jsonItems = [
                Item(
                    id: "j1", title: "Dated JSON", date: "2026-11-05T12:00:00Z", html: "<p>json</p>",
                    link: "https://json.example/1"),
                Item(
                    id: "j2", title: "Undated JSON", date: nil, html: "<p>no date</p>", link: "https://json.example/2"),
            ]
            let jsonText = try EndToEndDocuments.jsonFeed(title: "Quay JSON", items: jsonItems)
            server = try DemoServer { _ in
                [
                    "/feed.xml": DemoResource(
                        contentType: "application/rss+xml",
                        text: EndToEndDocuments.rss(title: "Harbour", items: rssItems)),
                    "/feed.json": DemoResource(contentType: "application/feed+json", text: jsonText),
                ]
            }
            store = try EndToEndStore()
            rss = server.baseURL.absoluteString + "feed.xml"
            json = server.baseURL.absoluteString + "feed.json"
            for url in [rss, json] {
                let added = try store.run(["add", url])
                try #require(added.status == 0, "\(added.standardError)")
            }
        }

        func close() {
            server.stop()
            store.remove()
        }

        func entries(_ arguments: [String] = []) throws -> [ListedEntry] {
            try store.json([ListedEntry].self, ["entries"] + arguments)
        }

        func id(_ title: String) throws -> Int64 {
            try #require(try entries().first { $0.title == title }?.id, "no entry \(title)")
        }
    }

    @Test func entriesAreNewestFirstWithTheIssuesFieldsAndPlainTitles() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let result = try fixture.store.run(["entries", "--json"])
        #expect(result.status == 0)
        #expect(
            try objectKeys(result.standardOutput)
                == Array(
                    repeating: ["id", "feed", "title", "link", "author", "published", "read", "starred"], count: 6))
        let entries = try JSONDecoder().decode([ListedEntry].self, from: Data(result.standardOutput.utf8))
        // The undated item is listed by when it was first seen: today, so first.
        #expect(
            entries.map(\.title) == ["Undated JSON", "Late", "Dated JSON", "Midnight", "Bold & bright", "Early"])
        #expect(
            entries.map(\.published) == [
                nil, "2026-11-06T18:45:00Z", "2026-11-05T12:00:00Z", "2026-11-05T00:00:00Z", "2026-11-04T23:30:00Z",
                "2026-11-03T09:00:00Z",
            ])
        #expect(result.standardOutput.contains("\"published\": null"))
        #expect(result.standardOutput.contains("\"read\": false"))
        #expect(
            entries[1]
                == ListedEntry(
                    id: entries[1].id, feed: fixture.rss, title: "Late", link: "https://harbour.example/late",
                    author: nil,
                    published: "2026-11-06T18:45:00Z", read: false, starred: false))
        #expect(entries[0].feed == fixture.json)
        #expect(entries[0].link == "https://json.example/2")
        #expect(Set(entries.map(\.id)).count == 6)
    }

    /// `--since` with no zone is UTC whatever the machine's zone; every filter narrows.
    @Test func theFiltersNarrowTheList() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let farEast = ["TZ": "Pacific/Kiritimati"]
        let since = try JSONDecoder().decode(
            [ListedEntry].self,
            from: Data(
                try fixture.store.run(["entries", "--since", "2026-11-05", "--json"], environment: farEast)
                    .standardOutput.utf8))
        #expect(since.map(\.title) == ["Undated JSON", "Late", "Dated JSON", "Midnight"])
        #expect(try fixture.entries(["--since", "2026-11-05T01:00:00+01:00"]).map(\.title).last == "Midnight")
        #expect(try fixture.entries(["--since", "2026-11-05T00:00:01"]).map(\.title).last == "Dated JSON")

        #expect(
            try fixture.entries(["--feed", fixture.rss]).map(\.title) == ["Late", "Midnight", "Bold & bright", "Early"])
        #expect(try fixture.entries(["--limit", "2"]).map(\.title) == ["Undated JSON", "Late"])

        let late = try fixture.id("Late")
        let early = try fixture.id("Early")
        #expect(try fixture.store.run(["read", String(late), String(early)]).status == 0)
        #expect(try fixture.store.run(["star", String(early)]).status == 0)
        #expect(
            try fixture.entries(["--unread", "--feed", fixture.rss]).map(\.title) == ["Midnight", "Bold & bright"])
        #expect(try fixture.entries(["--starred"]).map(\.title) == ["Early"])
        #expect(try fixture.entries(["--starred", "--unread"]).isEmpty)
        #expect(
            try fixture.entries(["--unread", "--since", "2026-11-05", "--feed", fixture.rss, "--limit", "5"]).map(
                \.title)
                == ["Midnight"])
        #expect(try fixture.store.run(["entries", "--feed", "http://127.0.0.1:9/none.xml"]).status == 1)
    }

    @Test func showReadUnreadStarUnstarAndReadAFeed() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let store = fixture.store
        let late = try fixture.id("Late")
        let midnight = try fixture.id("Midnight")

        let shown = try store.run(["show", String(late)])
        #expect(shown.status == 0)
        #expect(
            shown.standardOutput == """
                Late

                Id:        \(late)
                Feed:      \(fixture.rss)
                Link:      https://harbour.example/late
                Published: 2026-11-06 18:45
                State:     unread

                late

                """)

        let read = try store.run(["read", String(late), String(midnight)])
        #expect(read.status == 0)
        #expect(read.standardOutput == "Marked 2 entries read: \(late) \(midnight)\n")
        #expect(try store.count("SELECT count(*) FROM Entry WHERE read = 1") == 2)
        #expect(try store.run(["unread", String(midnight)]).status == 0)
        #expect(try store.run(["star", String(late), String(midnight)]).status == 0)
        #expect(try store.run(["unstar", String(late)]).status == 0)
        let states = try fixture.entries().filter { [late, midnight].contains($0.id) }.map { [$0.read, $0.starred] }
        #expect(states == [[true, false], [false, true]])
        #expect(try store.run(["show", String(late)]).standardOutput.contains("State:     read\n"))
        #expect(try store.run(["show", String(midnight)]).standardOutput.contains("State:     unread, starred\n"))

        let all = try store.run(["read", "--feed", fixture.rss])
        #expect(all.status == 0)
        #expect(all.standardOutput == "Marked 3 entries of \(fixture.rss) read\n")
        #expect(try fixture.entries(["--unread"]).map(\.feed) == [fixture.json, fixture.json])
    }

    @Test func anUnknownIdFailsNamingItAndChangesNothing() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let store = fixture.store
        let late = try fixture.id("Late")
        for command in ["show", "read", "unread", "star", "unstar", "delete"] {
            let arguments = command == "show" ? [command, "987654"] : [command, String(late), "987654"]
            let result = try store.run(arguments)
            #expect(result.status == 1, "\(command)")
            #expect(result.standardOutput == "")
            #expect(result.standardError.contains("987654"), "\(command): \(result.standardError)")
        }
        #expect(try store.count("SELECT count(*) FROM Entry WHERE read = 1 OR starred = 1 OR removed = 1") == 0)
    }

    @Test(arguments: [
        ["show", "abc"], ["read", "1x"], ["star", "1.5"], ["delete", "99999999999999999999"], ["unstar", ""],
        ["show", "1", "2"],
    ])
    func aNonNumericIdIsAUsageError(_ arguments: [String]) throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let result = try store.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("feeds: "))
        #expect(result.standardError.contains("Usage: feeds \(arguments[0])"))
    }

    /// A deleted entry is a tombstone: gone from entries and search, and a refresh while the
    /// feed still lists it (and changed) does not bring it back.
    @Test func aDeletedEntryStaysDeleted() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let store = fixture.store
        let midnight = try fixture.id("Midnight")
        #expect(try store.json([SearchHit].self, ["search", "dot"]).map(\.id) == [midnight])

        let deleted = try store.run(["delete", String(midnight)])
        #expect(deleted.status == 0)
        #expect(deleted.standardOutput == "Marked 1 entry deleted: \(midnight)\n")
        #expect(try !fixture.entries().map(\.id).contains(midnight))
        #expect(try store.json([SearchHit].self, ["search", "dot"]).isEmpty)
        #expect(try store.run(["show", String(midnight)]).status == 1)

        // The feed still lists it, with new words, and a new entry beside it.
        let items = [
            Item(id: "r3", title: "Midnight again", date: "2026-11-05T00:00:00Z", html: "<p>on the dot, edited</p>"),
            Item(id: "r5", title: "Later still", date: "2026-11-07T00:00:00Z", html: "<p>new</p>"),
        ]
        fixture.server.setResource(
            DemoResource(
                contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: "Harbour", items: items),
                lastModified: Date(timeIntervalSince1970: 1_793_900_000)), at: "/feed.xml")
        let refreshed = try store.json(RefreshJSON.self, ["refresh", fixture.rss])
        #expect(refreshed.feeds.map(\.new) == [1])
        let titles = try fixture.entries(["--feed", fixture.rss]).map(\.title)
        #expect(titles == ["Later still", "Late", "Bold & bright", "Early"])
        #expect(try store.json([SearchHit].self, ["search", "dot"]).isEmpty)
        #expect(try store.json([SearchHit].self, ["search", "edited"]).isEmpty)
        #expect(try store.run(["show", String(midnight)]).status == 1)
        #expect(try store.count("SELECT count(*) FROM Entry WHERE identity LIKE '%r3%'") == 1)
        #expect(try store.json([ListedFeed].self, ["list"]).first { $0.url == fixture.rss }?.entries == 4)
    }

    /// Ranked hits with snippets; a word only inside a tag or an attribute is not found;
    /// no hit is `[]`.
    @Test func searchRanksWithSnippetsAndReadsNoMarkup() throws {
        let items = [
            Item(
                id: "s1", title: "Notes", date: "2026-11-01T00:00:00Z", html: "<p>We passed a lighthouse at dusk.</p>"),
            Item(
                id: "s2", title: "Lighthouse keepers", date: "2026-11-02T00:00:00Z",
                html: "<p>The lighthouse keeper kept the lighthouse lit, a lighthouse of stone.</p>"),
            Item(
                id: "s3", title: "Links", date: "2026-11-03T00:00:00Z",
                html:
                    #"<p class="zebrafish"><a href="https://x.example/zebrafish" title="zebrafish">a link</a> <img alt="" src="/zebrafish.png"> plain words</p>"#
            ),
            Item(id: "s4", title: "Unrelated", date: "2026-11-04T00:00:00Z", html: "<p>Sailing.</p>"),
        ]
        let server = try DemoServer { _ in
            [
                "/s.xml": DemoResource(
                    contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: "Search", items: items))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "s.xml"
        #expect(try store.run(["add", url]).status == 0)

        let result = try store.run(["search", "lighthouse", "--json"])
        #expect(result.status == 0)
        #expect(
            try objectKeys(result.standardOutput)
                == Array(repeating: ["id", "feed", "title", "link", "snippet"], count: 2))
        let hits = try JSONDecoder().decode([SearchHit].self, from: Data(result.standardOutput.utf8))
        #expect(hits.map(\.title) == ["Lighthouse keepers", "Notes"])
        #expect(hits.allSatisfy { $0.feed == url && $0.snippet.lowercased().contains("lighthouse") })
        #expect(!hits.contains { $0.snippet.contains("<p>") })

        #expect(try store.json([SearchHit].self, ["search", "plain"]).map(\.title) == ["Links"])
        for hidden in ["zebrafish", "href", "class", "png"] {
            let none = try store.run(["search", hidden, "--json"])
            #expect(none.status == 0)
            #expect(none.standardOutput == "[]\n", "\(hidden)")
        }
        let text = try store.run(["search", "zebrafish"])
        #expect(text.status == 0)
        #expect(text.standardOutput == "No entries match \u{201C}zebrafish\u{201D}.\n")
    }

    /// Text a user may type that means something to FTS5's query syntax: never a crash or
    /// an error, always a JSON array; the words in it are still looked for.
    @Test func hostileSearchTextNeverFails() throws {
        let items = [
            Item(
                id: "c1", title: "Modern C++ notes", date: "2026-11-01T00:00:00Z", html: "<p>Templates AND lambdas.</p>"
            ),
            Item(
                id: "c2", title: "Fox 🦊 sightings", date: "2026-11-02T00:00:00Z", html: "<p>title: x marks the spot</p>"
            ),
        ]
        let server = try DemoServer { _ in
            [
                "/c.xml": DemoResource(
                    contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: "C", items: items))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        #expect(try store.run(["add", server.baseURL.absoluteString + "c.xml"]).status == 0)
        let texts = [
            "\"", "\"\"", "c++", "AND", "OR", "NOT", "-x", "title:x", "text:lighthouse", "NEAR(a b)", "*", "a*", "(",
            ")", "^", "'", "\\", "🦊", "🏳️‍🌈", "templates AND", "%", "_", "{title}: x", "x\ny", "   ", "-", "--",
        ]
        for text in texts {
            let result = try store.run(["search", "--json", "--", text])
            #expect(result.status == 0, "\(text): \(result.standardError)")
            #expect(result.standardOutput.hasPrefix("["), "\(text): \(result.standardOutput)")
            #expect(throws: Never.self, "\(text)") {
                try JSONDecoder().decode([SearchHit].self, from: Data(result.standardOutput.utf8))
            }
        }
        #expect(try store.json([SearchHit].self, ["search", "c++"]).map(\.title) == ["Modern C++ notes"])
        #expect(try store.json([SearchHit].self, ["search", "templates AND"]).map(\.title) == ["Modern C++ notes"])
        let dashed = try store.run(["search", "--json", "--", "-x"])
        #expect(
            try JSONDecoder().decode([SearchHit].self, from: Data(dashed.standardOutput.utf8)).map(\.title) == [
                "Fox 🦊 sightings"
            ])
        // Without `--`, a word that begins with `-` is an option, as in every POSIX tool: a
        // usage error that says how to search for it.
        let option = try store.run(["search", "-x"])
        #expect(option.status == 2)
        #expect(
            option.standardError.hasPrefix("feeds: unknown option -x (put -- before an argument that begins with -"))
    }
}
