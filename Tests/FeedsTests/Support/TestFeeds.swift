import Foundation
import Stash
import TestProcesses

@testable import Feeds

/// One item of a feed a test writes.
struct TestItem {
    var id: String
    var title: String
    var body = "<p>Body</p>"
    var date = "Thu, 05 Nov 2026 10:00:00 GMT"
}

/// Feed documents written by the tests.
enum TestFeeds {
    static func rss(title: String = "Test feed", link: String = "https://site.example/", _ items: [TestItem]) -> String
    {
        var text = """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0"><channel><title>\(title)</title><link>\(link)</link>

            """
        for item in items {
            text += """
                <item><guid>\(item.id)</guid><title>\(item.title)</title>
                <link>https://site.example/\(item.id.split(separator: "/").last ?? "")</link>
                <description><![CDATA[\(item.body)]]></description><pubDate>\(item.date)</pubDate></item>

                """
        }
        return text + "</channel></rss>\n"
    }

    static func resource(_ text: String) -> DemoResource {
        DemoResource(contentType: "application/rss+xml; charset=utf-8", text: text)
    }

    /// A store in a fresh temporary directory, removed with the value.
    static func library() throws -> (FeedLibrary, TemporaryStore) {
        let store = try TemporaryStore()
        return (try FeedLibrary(storeURL: store.url), store)
    }
}

/// A directory for one test's store, removed when the value goes.
final class TemporaryStore {
    let directory: URL
    var url: URL { directory.appendingPathComponent("feeds.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// What the sqlite3 shell prints for `sql` on the store.
    func sqlite(_ sql: String) throws -> String {
        let process = try ChildProcess("/usr/bin/sqlite3", [url.path, sql], standardOutput: .pipe)
        let data = process.standardOutputReader!.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
