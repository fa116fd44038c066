import Foundation
import Testing

@testable import Feeds

@Suite struct CommandLineOutputTests {
    private let date = Date(timeIntervalSince1970: 1_793_889_000)  // 2026-11-05T14:30:00Z

    /// Parses what `--json` printed, so the test reads values, not layout.
    private func parsed(_ value: JSONValue) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(value.rendered().utf8), options: [.fragmentsAllowed])
    }

    @Test func listPrintsCountsAsNumbersAndLastErrorAsStringOrNull() throws {
        let value = FeedsJSON.feeds([
            FeedSummary(url: "https://a.example/feed", title: "A", site: nil, entries: 3, unread: 2, lastError: nil),
            FeedSummary(
                url: "https://b.example/rss", title: "B \"quoted\"", site: "https://b.example/", entries: 0, unread: 0,
                lastError: "HTTP 500"),
        ])
        let text = value.rendered()
        #expect(text.contains("\"entries\": 3"))
        #expect(text.contains("\"lastError\": null"))
        #expect(text.contains("\"site\": null"))
        let array = try #require(try parsed(value) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(Set(array[0].keys) == ["url", "title", "site", "entries", "unread", "lastError"])
        #expect(array[0]["unread"] as? Int == 2)
        #expect(array[1]["title"] as? String == "B \"quoted\"")
        #expect(array[1]["lastError"] as? String == "HTTP 500")
        #expect(array[1]["site"] as? String == "https://b.example/")
        // Keys in the order.
        #expect(text.range(of: "\"url\"")!.lowerBound < text.range(of: "\"lastError\"")!.lowerBound)
    }

    @Test func entriesPrintBooleansAndUTCDatesOrNull() throws {
        let value = FeedsJSON.entries([
            EntrySummary(
                id: 12, feed: "https://a.example/feed", title: "Hello", link: "https://a.example/1", author: "Ada",
                published: date, read: true, starred: false),
            EntrySummary(
                id: 13, feed: "https://a.example/feed", title: "", link: nil, author: nil, published: nil, read: false,
                starred: true),
        ])
        let text = value.rendered()
        #expect(text.contains("\"published\": \"2026-11-05T14:30:00Z\""))
        #expect(text.contains("\"published\": null"))
        #expect(text.contains("\"read\": true"))
        #expect(text.contains("\"starred\": false"))
        let array = try #require(try parsed(value) as? [[String: Any]])
        #expect(Set(array[0].keys) == ["id", "feed", "title", "link", "author", "published", "read", "starred"])
        #expect(array[0]["id"] as? Int == 12)
        #expect(array[1]["link"] is NSNull)
        #expect(array[1]["author"] is NSNull)
    }

    @Test func refreshPrintsEveryFeedsStatus() throws {
        let report = RefreshReport(feeds: [
            FeedRefreshResult(url: "https://a.example/feed", status: .updated, new: 4, updated: 1),
            FeedRefreshResult(url: "https://b.example/feed", status: .notModified),
            FeedRefreshResult(url: "https://c.example/feed", status: .failed, error: "HTTP 404"),
        ])
        let object = try #require(try parsed(FeedsJSON.refresh(report)) as? [String: Any])
        let feeds = try #require(object["feeds"] as? [[String: Any]])
        #expect(feeds.map { $0["status"] as? String } == ["updated", "notModified", "failed"])
        #expect(Set(feeds[0].keys) == ["url", "status", "new", "error"])
        #expect(feeds[0]["new"] as? Int == 4)
        #expect(feeds[0]["error"] is NSNull)
        #expect(feeds[2]["error"] as? String == "HTTP 404")
        #expect(
            FeedsText.refreshSummary(report)
                == "Refreshed 3 feeds: 4 new entries, 1 updated, 1 not modified, 1 failed\n")
    }

    @Test func searchWithNoHitsIsAnEmptyArray() throws {
        #expect(FeedsJSON.search([]).rendered() == "[]")
        let value = FeedsJSON.search([
            SearchResult(id: 5, feed: "https://a.example/feed", title: "Bread", link: nil, snippet: "the [sourdough]")
        ])
        let array = try #require(try parsed(value) as? [[String: Any]])
        #expect(Set(array[0].keys) == ["id", "feed", "title", "link", "snippet"])
        #expect(array[0]["snippet"] as? String == "the [sourdough]")
        #expect(array[0]["id"] as? Int == 5)
    }

    @Test func bookmarksPrintTagsAsAnArrayAndCreatedInUTC() throws {
        let value = FeedsJSON.bookmarks([
            BookmarkSummary(url: "https://a.example/", title: "A", note: "", tags: ["linux", "swift"], created: date)
        ])
        let array = try #require(try parsed(value) as? [[String: Any]])
        #expect(Set(array[0].keys) == ["url", "title", "note", "tags", "created"])
        #expect(array[0]["tags"] as? [String] == ["linux", "swift"])
        #expect(array[0]["created"] as? String == "2026-11-05T14:30:00Z")
    }

    @Test func stringsAreEscaped() {
        #expect(JSONValue.string("a\"b\\c\nd\u{1}é").rendered() == "\"a\\\"b\\\\c\\nd\\u0001é\"")
        #expect(JSONValue.object([]).rendered() == "{}")
        #expect(JSONValue.array([.number(1), .bool(false), .null]).rendered() == "[\n  1,\n  false,\n  null\n]")
    }

    @Test func humanOutputIsReadable() {
        let entries = FeedsText.entries([
            EntrySummary(
                id: 7, feed: "f", title: "Seven", link: nil, author: nil, published: date, read: false, starred: true),
            EntrySummary(
                id: 123, feed: "f", title: "", link: nil, author: nil, published: nil, read: true, starred: false),
        ])
        #expect(entries == "  7  2026-11-05 14:30  N*  Seven\n123  -                     (untitled)\n")
        #expect(FeedsText.entries([]) == "No entries.\n")
        let feeds = FeedsText.feeds([
            FeedSummary(
                url: "https://a.example/feed", title: "A", site: nil, entries: 12, unread: 3, lastError: "HTTP 500")
        ])
        #expect(
            feeds
                == "UNREAD  ENTRIES  TITLE  URL\n     3       12  A      https://a.example/feed\n    last error: HTTP 500\n"
        )
        #expect(FeedsText.marked([1, 2], .read(true)) == "Marked 2 entries read: 1 2\n")
        #expect(FeedsText.marked([9], .removed) == "Marked 1 entry deleted: 9\n")
        // A terminal's progress line is redrawn in place: carriage return, erase the line.
        #expect(
            FeedsText.progress(RefreshProgress(done: 2, total: 5, url: "https://a.example/feed"))
                == "\r\u{1B}[K[2/5] https://a.example/feed")
        #expect(FeedsText.search([], for: "nothing") == "No entries match \u{201C}nothing\u{201D}.\n")
    }
}
