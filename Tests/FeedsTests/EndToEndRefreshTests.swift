import Feeds
import Foundation
import TestProcesses
import Testing

/// `feeds refresh`, run as the built binary: conditional GETs, a moving window, failures.
@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct EndToEndRefreshTests {
    typealias Item = EndToEndDocuments.Item

    static func item(_ letter: String, day: Int) -> Item {
        Item(
            id: "tag:window.example,2026:\(letter)", title: "Entry \(letter)",
            date: "2026-11-\(day < 10 ? "0" : "")\(day)T12:00:00Z", html: "<p>About \(letter).</p>")
    }

    static func rss(_ title: String, _ items: [Item], modified: Int = 0) -> DemoResource {
        DemoResource(
            contentType: "application/rss+xml", text: EndToEndDocuments.rss(title: title, items: items),
            lastModified: Date(timeIntervalSince1970: 1_793_889_000 + Double(modified) * 3_600))
    }

    @Test func theSecondRefreshIsAllNotModifiedAnsweredBy304s() throws {
        let json = try EndToEndDocuments.jsonFeed(
            title: "Quay JSON", items: [Item(id: "q1", title: "Quay one", date: "2026-11-01T00:00:00Z")])
        let server = try DemoServer { _ in
            [
                "/a.xml": Self.rss("Feed A", [Self.item("a1", day: 1), Self.item("a2", day: 2)]),
                "/b.json": DemoResource(contentType: "application/feed+json", text: json),
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let a = server.baseURL.absoluteString + "a.xml"
        let b = server.baseURL.absoluteString + "b.json"
        #expect(try store.run(["add", a]).status == 0)
        #expect(try store.run(["add", b]).status == 0)

        // A changes: the first refresh fetches it whole and stores its one new entry.
        server.setResource(
            Self.rss(
                "Feed A", [Self.item("a1", day: 1), Self.item("a2", day: 2), Self.item("a3", day: 3)], modified: 1),
            at: "/a.xml")
        let first = try store.json(RefreshJSON.self, ["refresh"])
        #expect(first.status(of: a) == "updated")
        #expect(first.feeds.first { $0.url == a }?.new == 1)
        #expect(first.status(of: b) == "notModified")

        let before = server.requestLog.count
        let second = try store.run(["refresh", "--json"])
        #expect(second.status == 0)
        #expect(second.standardError == "")
        let report = try JSONDecoder().decode(RefreshJSON.self, from: Data(second.standardOutput.utf8))
        #expect(report.feeds.map(\.status) == ["notModified", "notModified"])
        #expect(report.feeds.map(\.new) == [0, 0])
        #expect(report.feeds.allSatisfy { $0.error == nil })
        #expect(second.standardOutput.contains("\"error\": null"))
        #expect(Set(server.requestLog.dropFirst(before)) == ["GET /a.xml 304", "GET /b.json 304"])
        #expect(server.requestLog.count == before + 2)

        #expect(try store.count("SELECT count(*) FROM Entry") == 4)
        #expect(try store.duplicateEntries() == 0)
    }

    /// The document drops an entry and adds one, then brings the dropped one back: read
    /// flags stay, nothing is stored twice.
    @Test func aMovingWindowKeepsReadFlagsAndStoresNoDuplicate() throws {
        let server = try DemoServer { _ in
            [
                "/window.xml": Self.rss(
                    "Window", [Self.item("a", day: 1), Self.item("b", day: 2), Self.item("c", day: 3)])
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = server.baseURL.absoluteString + "window.xml"
        #expect(try store.run(["add", url]).status == 0)
        func ids() throws -> [String: Int64] {
            Dictionary(uniqueKeysWithValues: try store.json([ListedEntry].self, ["entries"]).map { ($0.title, $0.id) })
        }
        let first = try ids()
        #expect(try store.run(["read", String(first["Entry a"]!), String(first["Entry b"]!)]).status == 0)

        // a leaves the window, d joins it.
        server.setResource(
            Self.rss("Window", [Self.item("b", day: 2), Self.item("c", day: 3), Self.item("d", day: 4)], modified: 1),
            at: "/window.xml")
        let moved = try store.json(RefreshJSON.self, ["refresh"])
        #expect(moved.feeds.map(\.status) == ["updated"])
        #expect(moved.feeds.map(\.new) == [1])
        var entries = try store.json([ListedEntry].self, ["entries"])
        #expect(entries.map(\.title) == ["Entry d", "Entry c", "Entry b", "Entry a"])
        #expect(entries.map(\.read) == [false, false, true, true])
        #expect(try ids()["Entry b"] == first["Entry b"])

        // a comes back (b leaves): the same row, still read.
        server.setResource(
            Self.rss("Window", [Self.item("a", day: 1), Self.item("c", day: 3), Self.item("d", day: 4)], modified: 2),
            at: "/window.xml")
        let back = try store.json(RefreshJSON.self, ["refresh"])
        #expect(back.feeds.map(\.new) == [0])
        entries = try store.json([ListedEntry].self, ["entries"])
        #expect(entries.map(\.title) == ["Entry d", "Entry c", "Entry b", "Entry a"])
        #expect(entries.map(\.read) == [false, false, true, true])
        #expect(try ids()["Entry a"] == first["Entry a"])
        #expect(try store.count("SELECT count(*) FROM Entry") == 4)
        #expect(try store.duplicateEntries() == 0)
        #expect(try store.json([ListedFeed].self, ["list"]).map(\.unread) == [2])
    }

    /// One feed answers 500: the others are refreshed, the failure is on stderr and in the
    /// JSON naming the URL, exit 1, `list` shows it; backed off, it is skipped by a refresh
    /// of all but fetched when named, and once fixed its error is gone.
    @Test func aFailingFeedStopsNoOtherIsReportedAndIsFetchedWhenNamed() throws {
        let server = try DemoServer { _ in
            [
                "/one.xml": Self.rss("One", [Self.item("one", day: 1)]),
                "/two.xml": Self.rss("Two", [Self.item("two", day: 2)]),
                "/three.xml": Self.rss("Three", [Self.item("three", day: 3)]),
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let base = server.baseURL.absoluteString
        let (one, two, three) = (base + "one.xml", base + "two.xml", base + "three.xml")
        for url in [one, two, three] { #expect(try store.run(["add", url]).status == 0) }

        server.setResource(.failure(500), at: "/two.xml")
        server.setResource(
            Self.rss("Three", [Self.item("three", day: 3), Self.item("four", day: 4)], modified: 1), at: "/three.xml")
        let failed = try store.run(["refresh", "--json"])
        #expect(failed.status == 1)
        let report = try JSONDecoder().decode(RefreshJSON.self, from: Data(failed.standardOutput.utf8))
        #expect(report.status(of: one) == "notModified")
        #expect(report.status(of: two) == "failed")
        #expect(report.status(of: three) == "updated")
        let error = try #require(report.feeds.first { $0.url == two }?.error)
        #expect(error.contains(two))
        #expect(error.contains("500"))
        #expect(failed.standardError.contains(two), "\(failed.standardError)")
        #expect(failed.standardError.contains("500"))
        #expect(!failed.standardError.contains(one))
        #expect(try store.count("SELECT count(*) FROM Entry") == 4)

        let listed = try store.json([ListedFeed].self, ["list"])
        #expect(listed.first { $0.url == two }?.lastError?.contains("500") == true)
        #expect(listed.filter { $0.lastError != nil }.map(\.url) == [two])

        // Fixed, but backed off: a refresh of every feed does not ask for it...
        server.setResource(
            Self.rss("Two", [Self.item("two", day: 2), Self.item("two-b", day: 5)], modified: 1), at: "/two.xml")
        let before = server.requestLog.count
        let skipped = try store.run(["refresh", "--json"])
        #expect(!server.requestLog.dropFirst(before).contains { $0.hasPrefix("GET /two.xml") })
        #expect(skipped.standardOutput.contains(two))
        // ...a refresh that names it does.
        let named = try store.json(RefreshJSON.self, ["refresh", two])
        #expect(named.feeds.map(\.status) == ["updated"])
        #expect(named.feeds.map(\.new) == [1])
        #expect(server.requestLog.last == "GET /two.xml 200")
        #expect(try store.json([ListedFeed].self, ["list"]).allSatisfy { $0.lastError == nil })
        #expect(try store.count("SELECT count(*) FROM Entry") == 5)
    }

    @Test func refreshingAFeedNotSubscribedToFailsNamingIt() throws {
        let store = try EndToEndStore()
        defer { store.remove() }
        let url = "http://127.0.0.1:9/never.xml"
        let result = try store.run(["refresh", url])
        #expect(result.status == 1)
        #expect(result.standardError.contains(url))
    }

    /// On a terminal a progress line is drawn (and wiped before the summary); piped, stderr
    /// stays empty. The terminal is a pseudo-terminal from util-linux's `script`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func aProgressLineOnATerminalOnlyNoneWhenPiped() throws {
        let server = try DemoServer { _ in
            [
                "/one.xml": Self.rss("One", [Self.item("one", day: 1)]),
                "/two.xml": Self.rss("Two", [Self.item("two", day: 2)]),
            ]
        }
        defer { server.stop() }
        let store = try EndToEndStore()
        defer { store.remove() }
        let one = server.baseURL.absoluteString + "one.xml"
        let two = server.baseURL.absoluteString + "two.xml"
        for url in [one, two] { #expect(try store.run(["add", url]).status == 0) }

        let piped = try store.run(["refresh"])
        #expect(piped.status == 0)
        #expect(piped.standardError == "")
        #expect(piped.standardOutput == "Refreshed 2 feeds: 0 new entries, 0 updated, 2 not modified, 0 failed\n")

        let binary = try #require(FeedsBinary.url)
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDS_STORE"] = store.path
        let process = try ChildProcess(
            "/usr/bin/script", ["-qec", "'\(binary.path)' refresh", "/dev/null"], environment: environment,
            standardInput: .nullDevice, standardOutput: .pipe)
        let terminal = String(decoding: process.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(terminal.contains("\r\u{1B}[K[1/2] "), "\(terminal.debugDescription)")
        #expect(terminal.contains("\r\u{1B}[K[2/2] "))
        #expect(terminal.contains("\r\u{1B}[KRefreshed 2 feeds: 0 new entries, 0 updated, 2 not modified, 0 failed"))
    }
}
