import Feeds
import Foundation
import Testing

/// `feeds add`, `list` and `remove`, run as the built binary against a loopback server.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndFeedsTests {
    typealias Item = EndToEndDocuments.Item

    static let harbourItems = [
        Item(id: "h-1", title: "Tide tables for November", date: "2026-11-01T08:00:00Z", html: "<p>High water.</p>"),
        Item(id: "h-2", title: "Painting the hull", date: "2026-11-02T08:00:00Z", html: "<p>Two coats.</p>"),
        Item(id: "h-3", title: "Winter mooring", date: "2026-11-03T08:00:00Z", html: "<p>Ropes and fenders.</p>"),
    ]

    @Test func addPrintsTheTitleAndEntryCountAndStoresThem() throws {
        let server = try DemoServer { _ in
            [
                "/feed.xml": DemoResource(
                    contentType: "application/rss+xml",
                    text: EndToEndDocuments.rss(
                        title: "Harbour Notes", items: Self.harbourItems))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "feed.xml"

        let result = try store.run(["add", url])
        #expect(result.status == 0)
        #expect(result.standardOutput == "Added \u{201C}Harbour Notes\u{201D} (3 entries): \(url)\n")
        #expect(result.standardError == "")
        #expect(try store.sql("SELECT url, title FROM Feed") == "\(url)|Harbour Notes")
        #expect(try store.count("SELECT count(*) FROM Entry") == 3)
        #expect(
            try store.sql("SELECT title FROM Entry ORDER BY published")
                == Self.harbourItems.map(\.title).joined(
                    separator: "\n"))
    }

    @Test func addFollowsAnHTMLPagesAlternateLink() throws {
        let atom = EndToEndDocuments.atom(
            title: "Atom Harbour",
            items: [
                Item(id: "urn:a:1", title: "First light", date: "2026-11-04T06:00:00Z", link: "https://atom.example/1"),
                Item(
                    id: "urn:a:2", title: "Second light", date: "2026-11-05T06:00:00Z", link: "https://atom.example/2"),
            ])
        let server = try DemoServer { _ in
            [
                "/blog/": DemoResource(
                    contentType: "text/html; charset=utf-8",
                    text: EndToEndDocuments.html(linkingTo: "../atom.xml", type: "application/atom+xml")),
                "/atom.xml": DemoResource(contentType: "application/atom+xml", text: atom),
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let page = server.baseURL.absoluteString + "blog/"
        let feed = server.baseURL.absoluteString + "atom.xml"

        let result = try store.run(["add", page])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "Added \u{201C}Atom Harbour\u{201D} (2 entries): \(feed)\n")
        // The feed is subscribed, not the page.
        #expect(try store.sql("SELECT url FROM Feed") == feed)
        #expect(try store.sql("SELECT link FROM Entry ORDER BY published DESC LIMIT 1") == "https://atom.example/2")
    }

    enum BadAdd: String, CaseIterable, Sendable {
        case notFound, plainText, jsonThatIsNoFeed, htmlWithoutFeedLink, sameHTMLForEveryPath, brokenFeedLink
    }

    /// Each failure exits 1, names the URL it was given on stderr and leaves no feed, no
    /// entry behind.
    @Test(arguments: BadAdd.allCases) func aFailedAddExitsOneNamesTheURLAndStoresNothing(_ kind: BadAdd) throws {
        let everywhere = EndToEndDocuments.html(linkingTo: "/feed.xml")
        let server = try DemoServer { _ in
            switch kind {
            case .notFound: [:]
            case .plainText: ["/start": DemoResource(contentType: "application/rss+xml", text: "just words, no feed\n")]
            case .jsonThatIsNoFeed:
                ["/start": DemoResource(contentType: "application/json", text: #"{"items": "nope", "version": 3}"#)]
            case .htmlWithoutFeedLink:
                ["/start": DemoResource(contentType: "text/html", text: EndToEndDocuments.html(linkingTo: nil))]
            case .sameHTMLForEveryPath:
                // A catch-all site: the page, the feed it links to and the usual guesses are
                // all the same 200 HTML page.
                Dictionary(
                    uniqueKeysWithValues: [
                        "/start", "/feed.xml", "/feed", "/rss", "/rss.xml", "/atom.xml", "/index.xml",
                    ]
                    .map { ($0, DemoResource(contentType: "text/html", text: everywhere)) })
            case .brokenFeedLink:
                [
                    "/start": DemoResource(contentType: "text/html", text: everywhere),
                    "/feed.xml": DemoResource(
                        contentType: "application/rss+xml",
                        text: "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Cut"),
                ]
            }
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "start"

        let result = try store.run(["add", url])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("feeds: "))
        #expect(result.standardError.contains(url), "\(result.standardError)")
        #expect(try store.count("SELECT count(*) FROM Feed") == 0)
        #expect(try store.count("SELECT count(*) FROM Entry") == 0)
        if kind == .sameHTMLForEveryPath {
            #expect(server.requestLog.allSatisfy { $0.hasSuffix(" 200") }, "\(server.requestLog)")
        }
    }

    @Test func aURLThatIsNotHTTPIsRefusedBeforeAnyRequest() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        for url in ["file:///etc/passwd", "javascript:alert(1)", "ftp://ftp.example/feed.xml", "not a url"] {
            let result = try store.run(["add", url])
            #expect(result.status == 1, "\(url)")
            #expect(result.standardError.contains(url), "\(result.standardError)")
            #expect(!result.standardOutput.contains("root:"))
        }
        #expect(try store.count("SELECT count(*) FROM Feed") == 0)
    }

    @Test func listJSONHasTheIssuesFieldsWithNumbersAndNull() throws {
        let json = try EndToEndDocuments.jsonFeed(
            title: "Quay JSON",
            items: [
                Item(id: "1", title: "One", date: "2026-11-01T00:00:00Z", link: "https://json.example/1"),
                Item(id: "2", title: "Two", date: "2026-11-02T00:00:00Z", link: "https://json.example/2"),
            ])
        let server = try DemoServer { _ in
            [
                "/feed.xml": DemoResource(
                    contentType: "application/rss+xml",
                    text: EndToEndDocuments.rss(title: "Harbour Notes", items: Self.harbourItems)),
                "/feed.json": DemoResource(contentType: "application/feed+json", text: json),
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let rss = server.baseURL.absoluteString + "feed.xml"
        let jsonURL = server.baseURL.absoluteString + "feed.json"
        #expect(try store.run(["add", rss]).status == 0)
        #expect(try store.run(["add", jsonURL]).status == 0)
        let entries = try store.json([ListedEntry].self, ["entries", "--feed", rss])
        #expect(try store.run(["read", String(entries[0].id)]).status == 0)

        let result = try store.run(["list", "--json"])
        #expect(result.status == 0)
        #expect(
            try objectKeys(result.standardOutput)
                == Array(
                    repeating: ["url", "title", "site", "entries", "unread", "lastError"], count: 2))
        #expect(result.standardOutput.contains("\"lastError\": null"))
        #expect(result.standardOutput.contains("\"entries\": 3,"))
        let feeds = try JSONDecoder().decode([ListedFeed].self, from: Data(result.standardOutput.utf8))
        #expect(
            feeds == [
                ListedFeed(
                    url: rss, title: "Harbour Notes", site: "https://harbour.example/", entries: 3, unread: 2,
                    lastError: nil),
                ListedFeed(
                    url: jsonURL, title: "Quay JSON", site: "https://json.example/", entries: 2, unread: 2,
                    lastError: nil),
            ])
    }

    @Test func removeDeletesTheFeedAndItsEntriesAndAnUnknownOneFails() throws {
        let server = try DemoServer { _ in
            [
                "/feed.xml": DemoResource(
                    contentType: "application/rss+xml",
                    text: EndToEndDocuments.rss(
                        title: "Harbour Notes", items: Self.harbourItems))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "feed.xml"
        #expect(try store.run(["add", url]).status == 0)

        // Scheme and host in another case name the same feed.
        let shouted = url.replacingOccurrences(of: "http://", with: "HTTP://")
        let removed = try store.run(["remove", shouted])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try store.count("SELECT count(*) FROM Feed") == 0)
        #expect(try store.count("SELECT count(*) FROM Entry") == 0)

        let again = try store.run(["remove", url])
        #expect(again.status == 1)
        #expect(again.standardError.contains(url))
        #expect(try store.run(["list", "--json"]).standardOutput == "[]\n")
    }

    /// How servers really send feeds: the wrong content type, UTF-16 with a BOM, Latin-1
    /// named only by the HTTP header (which beats the XML declaration), a bare `&` and HTML
    /// entities. Each is detected from its content and added with its title whole.
    @Test(arguments: [
        "rss as text/html", "atom as octet-stream", "json feed as text/plain", "utf-16 with a bom",
        "latin-1 named by the header", "bare ampersand and html entities",
    ])
    func feedsAreReadFromTheirContentWhateverTheServerSays(_ kind: String) throws {
        let items = [Item(id: "e1", title: "Crème brûlée", date: "2026-11-01T00:00:00Z", html: "<p>Dessert.</p>")]
        let rss = EndToEndDocuments.rss(title: "Café Crème", items: items)
        let (contentType, body): (String, Data) =
            switch kind {
            case "rss as text/html": ("text/html; charset=utf-8", Data(rss.utf8))
            case "atom as octet-stream":
                ("application/octet-stream", Data(EndToEndDocuments.atom(title: "Café Crème", items: items).utf8))
            case "json feed as text/plain":
                ("text/plain", Data(try EndToEndDocuments.jsonFeed(title: "Café Crème", items: items).utf8))
            case "utf-16 with a bom":
                (
                    "application/xml",
                    Data([0xFF, 0xFE])
                        + rss.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"").data(
                            using: .utf16LittleEndian)!
                )
            case "latin-1 named by the header":
                ("application/rss+xml; charset=ISO-8859-1", rss.data(using: .isoLatin1)!)
            default:
                (
                    "application/rss+xml",
                    Data(
                        rss.replacingOccurrences(
                            of: "<title>Café Crème</title>", with: "<title>Café & Crème&nbsp;&eacute;</title>"
                        )
                        .utf8)
                )
            }
        let server = try DemoServer { _ in ["/feed": DemoResource(contentType: contentType, body: body)] }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let result = try store.run(["add", server.baseURL.absoluteString + "feed"])
        #expect(result.status == 0, "\(kind): \(result.standardError)")
        // A no-break space in a title is a space: titles are one line of plain text.
        let title = kind == "bare ampersand and html entities" ? "Café & Crème é" : "Café Crème"
        #expect(try store.json([ListedFeed].self, ["list"]).map(\.title) == [title], "\(kind)")
        #expect(try store.json([ListedEntry].self, ["entries"]).map(\.title) == ["Crème brûlée"], "\(kind)")
    }

    /// An entry's id is its row id, never reused: once a feed is removed and added again, the
    /// old ids name nothing (a script holding one never marks another entry).
    @Test func entryIdsAreNeverReused() throws {
        let server = try DemoServer { _ in
            [
                "/feed.xml": DemoResource(
                    contentType: "application/rss+xml",
                    text: EndToEndDocuments.rss(title: "Harbour Notes", items: Self.harbourItems))
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "feed.xml"
        #expect(try store.run(["add", url]).status == 0)
        let old = try store.json([ListedEntry].self, ["entries"]).map(\.id)
        #expect(try store.run(["remove", url]).status == 0)
        #expect(try store.run(["add", url]).status == 0)
        let new = try store.json([ListedEntry].self, ["entries"]).map(\.id)
        #expect(new.count == 3)
        #expect(Set(old).isDisjoint(with: new))
        for id in old {
            let result = try store.run(["read", String(id)])
            #expect(result.status == 1)
            #expect(result.standardError.contains(String(id)))
        }
        #expect(try store.json([ListedFeed].self, ["list"]).map(\.unread) == [3])
    }
}
