import Foundation
import Stash
import StashREST
import Testing

@testable import Feeds

/// What a refresh keeps and what it changes, through `FeedLibrary` against a real loopback
/// server and a real store file.
@Suite struct LibraryRefreshTests {
    /// A feed lists a window: an entry that scrolled out keeps its row and the reader's
    /// flags, and comes back as itself, read, when the window lists it again.
    @Test func aMovingWindowKeepsReadFlagsAndMakesNoDuplicate() async throws {
        let one = TestItem(id: "e1", title: "One")
        let two = TestItem(id: "e2", title: "Two")
        let three = TestItem(id: "e3", title: "Three")
        let server = try DemoServer { _ in ["/f.xml": TestFeeds.resource(TestFeeds.rss([one, two]))] }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        let url = server.baseURL.appendingPathComponent("f.xml").absoluteString
        let added = try await library.add(url)
        #expect(added.entries == 2 && added.unread == 2 && added.title == "Test feed")
        let secondEntry = try #require(try await library.entries(EntryQuery()).first { $0.title == "Two" })
        try await library.mark([secondEntry.id], .read(true))

        server.setResource(TestFeeds.resource(TestFeeds.rss([three, one])), at: "/f.xml")
        let moved = await library.refresh()
        #expect(moved.feeds.map(\.status) == [.updated] && moved.newEntries == 1 && moved.updatedEntries == 0)
        server.setResource(TestFeeds.resource(TestFeeds.rss([three, two, one])), at: "/f.xml")
        let back = await library.refresh()
        #expect(back.newEntries == 0)
        #expect(try store.sqlite("SELECT identity, read FROM Entry ORDER BY identity") == "e1|0\ne2|1\ne3|0")
        #expect(try await library.feeds().first?.unread == 2)
    }

    @Test func anUnchangedFeedIsA304AndAChangedEntryIsUpdated() async throws {
        let server = try DemoServer { _ in
            ["/f.xml": TestFeeds.resource(TestFeeds.rss([TestItem(id: "a", title: "Old title")]))]
        }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        _ = try await library.add(server.baseURL.appendingPathComponent("f.xml").absoluteString)
        let same = await library.refresh()
        #expect(same.feeds.map(\.status) == [.notModified])
        #expect(server.requestLog.suffix(1) == ["GET /f.xml 304"])
        server.setResource(
            TestFeeds.resource(TestFeeds.rss([TestItem(id: "a", title: "New title", body: "<p>Moved on</p>")])),
            at: "/f.xml")
        let changed = await library.refresh()
        #expect(changed.feeds.first?.status == .updated && changed.updatedEntries == 1 && changed.newEntries == 0)
        #expect(try store.sqlite("SELECT title, text FROM Entry") == "New title|Moved on")
        // Search follows the save that changed the entry: the new words, not the old.
        #expect(try await library.search("moved").map(\.title) == ["New title"])
        #expect(try await library.search("old").isEmpty)
    }

    /// Feeds that move their ids from http to https keep their entries (and flags).
    @Test func idsMovingFromHTTPToHTTPSAreTheSameEntries() async throws {
        let items = (1...3).map { TestItem(id: "http://site.example/p/\($0)", title: "Post \($0)") }
        let server = try DemoServer { _ in ["/f.xml": TestFeeds.resource(TestFeeds.rss(items))] }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        _ = try await library.add(server.baseURL.appendingPathComponent("f.xml").absoluteString)
        let ids = try await library.entries(EntryQuery()).map(\.id)
        try await library.mark(ids, .read(true))
        let moved = items.map { TestItem(id: $0.id.replacingOccurrences(of: "http:", with: "https:"), title: $0.title) }
        server.setResource(TestFeeds.resource(TestFeeds.rss(moved)), at: "/f.xml")
        let report = await library.refresh()
        #expect(report.newEntries == 0)
        #expect(try store.sqlite("SELECT count(*), sum(read) FROM Entry") == "3|3")
    }

    /// A deleted entry is a tombstone: hidden, unsearchable, and not brought back while the
    /// feed lists it.
    @Test func aDeletedEntryStaysDeleted() async throws {
        let items = [
            TestItem(id: "keep", title: "Kept", body: "<p>lighthouse</p>"),
            TestItem(id: "gone", title: "Gone", body: "<p>lighthouse keeper</p>"),
        ]
        let server = try DemoServer { _ in ["/f.xml": TestFeeds.resource(TestFeeds.rss(items))] }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        let url = server.baseURL.appendingPathComponent("f.xml").absoluteString
        _ = try await library.add(url)
        let gone = try #require(try await library.entries(EntryQuery()).first { $0.title == "Gone" })
        try await library.mark([gone.id], .removed)
        var edited = items
        edited[1].body = "<p>lighthouse keeper, edited</p>"
        server.setResource(TestFeeds.resource(TestFeeds.rss(edited)), at: "/f.xml")
        _ = await library.refresh(url)
        #expect(try await library.entries(EntryQuery()).map(\.title) == ["Kept"])
        #expect(try await library.search("lighthouse").map(\.title) == ["Kept"])
        #expect(try await library.feeds().first?.entries == 1)
        #expect(try store.sqlite("SELECT count(*) FROM Entry") == "2")
        await #expect(throws: FeedsError.self) { try await library.entry(id: gone.id) }
    }

    /// One bad feed stops no other; its error is kept and it is backed off, except when a
    /// refresh names it.
    @Test func aFailingFeedIsReportedKeptAndBackedOff() async throws {
        let server = try DemoServer { _ in
            [
                "/good.xml": TestFeeds.resource(TestFeeds.rss([TestItem(id: "g", title: "Good")])),
                "/bad.xml": TestFeeds.resource(TestFeeds.rss([TestItem(id: "b", title: "Bad")])),
            ]
        }
        defer { server.stop() }
        let (library, store) = try TestFeeds.library()
        let good = server.baseURL.appendingPathComponent("good.xml").absoluteString
        let bad = server.baseURL.appendingPathComponent("bad.xml").absoluteString
        _ = try await library.add(good)
        _ = try await library.add(bad)
        server.setResource(.failure(500), at: "/bad.xml")
        server.setResource(
            TestFeeds.resource(TestFeeds.rss([TestItem(id: "g", title: "Good"), TestItem(id: "g2", title: "More")])),
            at: "/good.xml")
        let report = await library.refresh()
        let byURL = Dictionary(uniqueKeysWithValues: report.feeds.map { ($0.url, $0) })
        #expect(byURL[good]?.status == .updated && byURL[good]?.new == 1)
        #expect(byURL[bad]?.status == .failed)
        #expect(byURL[bad]?.error?.contains(bad) == true && byURL[bad]?.error?.contains("500") == true)
        let listed = try await library.feeds().first { $0.url == bad }
        #expect(listed?.lastError?.contains("500") == true)
        #expect(try store.sqlite("SELECT errorCount FROM Feed WHERE url = '\(bad)'") == "1")

        // Backed off: a refresh of all skips it...
        let requests = server.requestLog.count
        let again = await library.refresh()
        #expect(again.feeds.first { $0.url == bad }?.status == .skipped)
        #expect(!server.requestLog.dropFirst(requests).contains { $0.hasPrefix("GET /bad.xml") })
        // ...a refresh that names it fetches it, and a success forgets the failures.
        server.setResource(TestFeeds.resource(TestFeeds.rss([TestItem(id: "b", title: "Bad")])), at: "/bad.xml")
        let named = await library.refresh(bad)
        #expect(named.feeds.map(\.status) == [.notModified] || named.feeds.map(\.status) == [.updated])
        #expect(try store.sqlite("SELECT errorCount, lastError IS NULL FROM Feed WHERE url = '\(bad)'") == "0|1")
    }

    /// A host that answers 429 with `Retry-After` is not asked again in this refresh, nor
    /// before the time it gave; its other feeds are skipped, not failed.
    @Test func retryAfterHoldsTheWholeHost() async throws {
        let server = try DemoServer { _ in
            (1...3).reduce(into: [:]) { routes, n in
                routes["/f\(n).xml"] = TestFeeds.resource(TestFeeds.rss([TestItem(id: "\(n)", title: "F\(n)")]))
            }
        }
        defer { server.stop() }
        let configuration = { () -> RESTConfiguration in
            var configuration = FeedFetcher.configuration
            configuration.retry = .none
            return configuration
        }()
        let store = try TemporaryStore()
        let library = try FeedLibrary(storeURL: store.url, configuration: configuration)
        for n in 1...3 { _ = try await library.add(server.baseURL.appendingPathComponent("f\(n).xml").absoluteString) }
        for n in 1...3 { server.setResource(.failure(429, headers: ["Retry-After": "600"]), at: "/f\(n).xml") }
        let before = server.requestLog.count
        let report = await library.refresh()
        #expect(server.requestLog.count - before == 1)
        #expect(report.feeds.filter { $0.status == .failed }.count == 1)
        #expect(report.feeds.filter { $0.status == .skipped }.count == 2)
        let waits = try store.sqlite(
            "SELECT min(strftime('%s', nextRefresh) - strftime('%s','now')) FROM Feed WHERE nextRefresh IS NOT NULL")
        #expect((Double(waits) ?? 0) > 500)
        #expect(try store.sqlite("SELECT sum(errorCount) FROM Feed") == "1")
    }

    /// At most one request at a time to a host, several hosts at once.
    @Test func oneRequestAtATimePerHost() async throws {
        var slow = TestFeeds.resource(TestFeeds.rss([TestItem(id: "s", title: "Slow")]))
        slow.delay = .milliseconds(150)
        let first = try DemoServer(address: "127.0.0.1") { _ in
            (1...4).reduce(into: [:]) { $0["/f\($1).xml"] = slow }
        }
        let second = try DemoServer(address: "127.0.0.2") { _ in
            (1...4).reduce(into: [:]) { $0["/f\($1).xml"] = slow }
        }
        defer {
            first.stop()
            second.stop()
        }
        let (library, store) = try TestFeeds.library()
        defer { withExtendedLifetime(store) {} }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in [first, second] {
                for n in 1...4 {
                    let url = server.baseURL.appendingPathComponent("f\(n).xml").absoluteString
                    group.addTask { _ = try await library.add(url) }
                }
            }
            try await group.waitForAll()
        }
        let report = await library.refresh()
        #expect(report.feeds.count == 8 && report.notModified == 8)
        #expect(first.mostAtOnce == 1 && second.mostAtOnce == 1)
    }
}
