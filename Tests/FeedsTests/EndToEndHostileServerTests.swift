import Feeds
import Foundation
import Testing

/// Servers that misbehave or attack: a token's way to another host, links and redirects to
/// local files, redirect loops, `Retry-After`, ids that move, dates that are not dates.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndHostileServerTests {
    typealias Item = EndToEndDocuments.Item

    static let bookmarks = (1...3).map {
        DemoBookmark(
            id: $0, url: "https://other\($0).example/", title: "Other \($0)", tags: ["x"],
            dateAdded: Date(timeIntervalSince1970: 1_790_000_000))
    }

    /// A page of the API on one host names a page on another as `next`, or redirects there:
    /// the token is never sent to it (the other host's API, which wants that token, answers
    /// 401), and the import stores nothing.
    @Test func bookmarksImportNeverSendsTheTokenToAnotherHost() throws {
        let other = try DemoServer(address: "127.0.0.2", bookmarks: Self.bookmarks, token: "s3cret")
        defer { other.stop() }
        let stolen = other.baseURL.absoluteString + "api/bookmarks/"
        let first = """
            {"count": 4, "next": "\(stolen)", "previous": null, "results": [
              {"id": 9, "url": "https://first.example/", "title": "First", "description": "", "notes": "",
               "tag_names": ["a"], "date_added": "2026-11-01T00:00:00Z"}]}
            """
        let api = try DemoServer { _ in
            [
                "/api/v1/bookmarks": DemoResource(contentType: "application/json", text: first),
                "/api/v1/moved": .failure(302, headers: ["Location": stolen]),
            ]
        }
        defer { api.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        for path in ["api/v1/bookmarks", "api/v1/moved"] {
            let url = api.baseURL.absoluteString + path
            let result = try store.run(["bookmarks", "import", url, "--token", "s3cret"])
            #expect(result.status == 1, "\(path): \(result.standardOutput)")
            #expect(result.standardError.contains("401"), "\(path): \(result.standardError)")
        }
        #expect(!other.requestLog.isEmpty)
        #expect(other.requestLog.allSatisfy { $0.hasSuffix(" 401") }, "\(other.requestLog)")
        #expect(try store.count("SELECT count(*) FROM Bookmark") == 0)
    }

    /// A page whose feed link is a `file:` URL, or a feed that redirects to one: the local
    /// file (a valid feed) is never read, nothing is stored.
    @Test func aFeedLinkOrRedirectToALocalFileIsNeverFollowed() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let secret = store.folder.appendingPathComponent("secret.xml")
        try Data(
            EndToEndDocuments.rss(title: "TOPSECRET", items: [Item(id: "s", title: "TOPSECRET item", date: nil)]).utf8
        ).write(to: secret)
        let server = try DemoServer { _ in
            [
                "/page": DemoResource(
                    contentType: "text/html", text: EndToEndDocuments.html(linkingTo: secret.absoluteString)),
                "/redirect": .failure(302, headers: ["Location": secret.absoluteString]),
                "/loop-a": .failure(302, headers: ["Location": "/loop-b"]),
                "/loop-b": .failure(302, headers: ["Location": "/loop-a"]),
            ]
        }
        defer { server.stop() }
        for path in ["page", "redirect", "loop-a"] {
            let url = server.baseURL.absoluteString + path
            let started = Date()
            let result = try store.run(["add", url])
            #expect(result.status == 1, "\(path)")
            #expect(result.standardError.contains(url), "\(path): \(result.standardError)")
            #expect(!(result.standardOutput + result.standardError).contains("TOPSECRET"))
            #expect(Date().timeIntervalSince(started) < 10, "\(path)")
        }
        #expect(try store.count("SELECT count(*) FROM Feed") == 0)
        #expect(server.requestLog.filter { $0.contains("/loop-") }.count <= 2 * 11, "\(server.requestLog)")
    }

    /// Every feed on one host, fetched one request at a time.
    @Test func oneRequestAtATimePerHost() throws {
        let server = try EndToEndAttackTests.server(feeds: 6, entries: 2, delay: .milliseconds(60))
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        try EndToEndAttackTests.subscribe(store, to: server, feeds: 6)
        let result = try store.run(["refresh", "--json"])
        #expect(result.status == 0)
        #expect(server.requestLog.count == 6)
        #expect(server.mostAtOnce == 1)
    }

    /// One id twice in a document, then every id moved from http to https, then a date that
    /// is no date: no duplicate, nothing unread again, `null` rather than 1970 or now.
    @Test func idsThatRepeatOrMoveToHTTPSAndDatesThatAreNotDates() throws {
        let items = [
            Item(id: "http://ids.example/1", title: "One", date: "2026-11-01T00:00:00Z"),
            Item(id: "http://ids.example/1", title: "One again", date: "2026-11-02T00:00:00Z"),
            Item(id: "http://ids.example/2", title: "Two", date: "2026-11-03T00:00:00Z"),
        ]
        let server = try DemoServer { _ in ["/ids.xml": EndToEndRefreshTests.rss("Ids", items)] }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "ids.xml"
        #expect(try store.run(["add", url]).status == 0)
        #expect(try store.count("SELECT count(*) FROM Entry") == 3)
        #expect(try store.run(["read", "--feed", url]).status == 0)
        let two = try #require(try store.json([ListedEntry].self, ["entries"]).first { $0.title == "Two" }?.id)
        #expect(try store.run(["delete", String(two)]).status == 0)

        let moved = items.map {
            Item(id: $0.id.replacingOccurrences(of: "http:", with: "https:"), title: $0.title, date: $0.date)
        }
        server.setResource(EndToEndRefreshTests.rss("Ids", moved, modified: 1), at: "/ids.xml")
        let refreshed = try store.json(RefreshJSON.self, ["refresh"])
        #expect(refreshed.feeds.map(\.new) == [0])
        #expect(try store.count("SELECT count(*) FROM Entry") == 3)
        #expect(try store.json([ListedFeed].self, ["list"]).map(\.unread) == [0])
        #expect(try store.duplicateEntries() == 0)
        // The deleted one, its id now https, stays deleted.
        #expect(try store.json([ListedEntry].self, ["entries"]).map(\.title).sorted() == ["One", "One again"])

        let undated = EndToEndDocuments.rss(title: "Ids", items: moved).replacingOccurrences(
            of: "</channel>",
            with: "<item><guid>d1</guid><title>Undated</title><pubDate>sometime soon</pubDate></item></channel>")
        server.setResource(
            DemoResource(
                contentType: "application/rss+xml", text: undated,
                lastModified: Date(timeIntervalSince1970: 1_793_999_000)), at: "/ids.xml")
        #expect(try store.run(["refresh", url]).status == 0)
        let entry = try #require(try store.json([ListedEntry].self, ["entries", "--unread"]).first)
        #expect(entry.title == "Undated")
        #expect(entry.published == nil)
        #expect(try store.sql("SELECT published IS NULL FROM Entry WHERE title = 'Undated'") == "1")
    }

    /// A feed that starts answering 200 with nothing, or with a captive portal's login page:
    /// the refresh fails naming the URL, the stored entries stay as they were, and nothing
    /// from the page is stored as an entry.
    @Test func anEmptyAnswerOrACaptivePortalKeepsTheFeedsEntries() throws {
        let server = try DemoServer { _ in
            [
                "/feed.xml": EndToEndRefreshTests.rss(
                    "Kept", [EndToEndRefreshTests.item("k1", day: 1), EndToEndRefreshTests.item("k2", day: 2)])
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "feed.xml"
        #expect(try store.run(["add", url]).status == 0)
        let before = try store.json([ListedEntry].self, ["entries"])
        let portal = """
            <!DOCTYPE html><html><head><title>Hotel Wi-Fi</title>
            <link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
            <body><form action="/login"><input name="room"></form></body></html>
            """
        for (index, answer) in [
            DemoResource(contentType: "application/rss+xml", text: ""),
            DemoResource(contentType: "text/html", text: portal),
        ].enumerated() {
            var answer = answer
            answer.lastModified = Date(timeIntervalSince1970: 1_794_000_000 + Double(index) * 60)
            server.setResource(answer, at: "/feed.xml")
            let result = try store.run(["refresh", url, "--json"])
            #expect(result.status == 1)
            let report = try JSONDecoder().decode(RefreshJSON.self, from: Data(result.standardOutput.utf8))
            #expect(report.feeds.map(\.status) == ["failed"])
            #expect(report.feeds.first?.error?.contains(url) == true)
            #expect(try store.json([ListedEntry].self, ["entries"]) == before)
            #expect(try store.json([ListedFeed].self, ["list"]).map(\.title) == ["Kept"])
        }
    }
}
