import Foundation
import Stash
import Testing

@testable import Feeds

/// `add`, bookmarks and OPML through `FeedLibrary`, against a loopback server and a store
/// file.
@Suite struct LibraryCommandsTests {
    static let page = """
        <!doctype html><html><head><title>Site</title>
        <link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>Hello</body></html>
        """

    @Test func addFollowsAPagesAlternateLinkAndStoresNothingWhenItFails() async throws {
        let server = try DemoServer { _ in
            [
                "/": DemoResource(contentType: "text/html", text: Self.page),
                "/feed.xml": TestFeeds.resource(TestFeeds.rss(title: "Found", [TestItem(id: "1", title: "One")])),
                "/plain": DemoResource(contentType: "text/html", text: "<html><body>No feed here</body></html>"),
                "/broken": DemoResource(contentType: "application/rss+xml", text: "<rss><channel><title>cut"),
            ]
        }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        let found = try await library.add(server.baseURL.absoluteString)
        #expect(found.title == "Found" && found.entries == 1)
        #expect(found.url == server.baseURL.appendingPathComponent("feed.xml").absoluteString)

        for path in ["plain", "broken", "missing"] {
            let url = server.baseURL.appendingPathComponent(path).absoluteString
            await #expect {
                _ = try await library.add(url)
            } throws: { error in
                (error as? FeedsError)?.message.contains(url) == true
            }
        }
        await #expect(throws: FeedsError.self) { _ = try await library.add("ftp://example.com/feed") }
        #expect(try store.sqlite("SELECT count(*) FROM Feed") == "1")
        #expect(try store.sqlite("SELECT count(*) FROM Entry") == "1")
    }

    @Test func bookmarksAreOnePerURLAndTagsOnePerName() async throws {
        let (library, store) = try TestFeeds.library()
        _ = try await library.addBookmark("HTTPS://Example.COM/Read", tags: ["Swift", "swift "], note: "first")
        let again = try await library.addBookmark("https://example.com/Read", tags: ["SWIFT", "Linux"])
        #expect(again.url == "https://example.com/Read" && again.note == "first" && again.tags == ["linux", "swift"])
        #expect(try await library.bookmarks(tag: "SwIfT").map(\.url) == ["https://example.com/Read"])
        #expect(try await library.bookmarks(tag: "nothing").isEmpty)
        #expect(try store.sqlite("SELECT count(*) FROM Bookmark; SELECT count(*) FROM Tag") == "1\n2")
        try await library.removeBookmark("https://EXAMPLE.com/Read")
        #expect(try await library.bookmarks().isEmpty)
        await #expect(throws: FeedsError.self) { try await library.removeBookmark("https://example.com/Read") }
    }

    @Test func bookmarksImportInOneCallTwiceMakesNoDuplicate() async throws {
        let bookmarks = (1...7).map { n in
            DemoBookmark(
                id: n, url: n == 7 ? "HTTPS://EXAMPLE.org/1" : "https://example.org/\(n)", title: "Link \(n)",
                description: "", notes: "note \(n)", tags: n.isMultiple(of: 2) ? ["Even", "even"] : ["odd"],
                dateAdded: Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 60))
        }
        let server = try DemoServer(bookmarks: bookmarks, token: "t0ken")
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        let api = server.baseURL.appendingPathComponent("api/bookmarks/").absoluteString + "?limit=3"
        await #expect(throws: FeedsError.self) { _ = try await library.importBookmarks(from: api, token: "wrong") }
        #expect(try store.sqlite("SELECT count(*) FROM Bookmark") == "0")
        let first = try await library.importBookmarks(from: api, token: "t0ken")
        #expect(first.pages == 3 && first.inserted == 6)
        let second = try await library.importBookmarks(from: api, token: "t0ken")
        #expect(second.inserted == 0)
        #expect(
            try store.sqlite(
                "SELECT count(*) FROM Bookmark; SELECT group_concat(name) FROM (SELECT name FROM Tag ORDER BY name)")
                == "6\neven,odd")
        #expect(try await library.bookmarks(tag: "EVEN").count == 3)
        #expect(try store.sqlite("SELECT note FROM Bookmark WHERE url = 'https://example.org/1'") == "note 7")
    }

    @Test func opmlRoundTripsFoldersTitlesAndURLs() async throws {
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
            <outline text="Tech"><outline text="Swift &amp; more" type="rss" xmlUrl="https://a.example/feed"/>
            <outline text="Deep"><outline text="B" type="rss" xmlUrl="https://b.example/rss" htmlUrl="https://b.example/"/>
            </outline></outline><outline text="Top" type="rss" xmlUrl="https://c.example/atom"/></body></opml>
            """
        let (library, store) = try TestFeeds.library()
        defer { withExtendedLifetime(store) {} }
        let imported = try await library.importOPML(Data(opml.utf8))
        #expect(imported.feeds == 3 && imported.folders == 2)
        let exported = try await library.exportOPML()
        let (other, otherStore) = try TestFeeds.library()
        defer { withExtendedLifetime(otherStore) {} }
        let again = try await other.importOPML(Data(exported.utf8))
        #expect(again.feeds == 3 && again.folders == 2)
        let feeds = try OPMLDocument.parse(Data(try await other.exportOPML().utf8)).feeds
        #expect(
            feeds.map { "\($0.folderPath.joined(separator: "/"))|\($0.title)|\($0.url)|\($0.siteURL ?? "")" }.sorted()
                == [
                    "Tech/Deep|B|https://b.example/rss|https://b.example/",
                    "Tech|Swift & more|https://a.example/feed|", "|Top|https://c.example/atom|",
                ].sorted())
        await #expect(throws: FeedsError.self) { _ = try await library.importOPML(Data("<html/>".utf8)) }
    }
}
