import Feeds
import Foundation

/// The benchmark's steps in order, on one store: subscribe, refresh with nothing new,
/// refresh with some feeds changed (on H hosts, then on one), then the queries beside the
/// baseline. Every step checks what FeedLibrary answered, and stops the run when it is
/// wrong: a fast wrong answer is no figure.
@MainActor
final class BenchRun {
    let options: Options
    let corpus: FeedCorpus
    let storeURL: URL
    var report = Report()
    private let hosts: LoopbackHosts
    private var library: FeedLibrary
    /// The layout the store's URLs are in now.
    private var layout: Int

    /// Runs of each query; the table shows the median.
    static let queryRuns = 20

    init(options: Options, storeURL: URL) throws {
        self.options = options
        self.storeURL = storeURL
        let corpus = FeedCorpus(feeds: options.feeds, entries: options.entries)
        self.corpus = corpus
        let (hosts, seconds) = try Self.measureSync { try LoopbackHosts(corpus: corpus, hosts: options.hosts) }
        self.hosts = hosts
        layout = options.hosts
        library = try FeedLibrary(storeURL: storeURL)
        print(
            String(
                format: "generated %d documents (%.1f MB) and started %d servers in %.2f s", options.feeds,
                Double(hosts.firstBytes) / 1e6, options.hosts, seconds))
    }

    func run() async throws {
        try await subscribe()
        // Once with the library that made the 1,000 saves of the adds, then (below) with a
        // new one each time, as a new `feeds refresh` process has: the two differ.
        try await refreshUnchanged(after: "the adds' FeedLibrary")
        for layout in options.hosts > 1 ? [options.hosts, 1] : [1] {
            try useLayout(layout)
            try await refreshUnchanged()
            try await refreshChanged()
        }
        let baseline = try Baseline(path: storeURL.path)
        try await unreadEntries(baseline)
        try await search(FeedCorpus.commonWord, baseline)
        try await search(FeedCorpus.rareWord, baseline)
        try await feedList(baseline)
        storeFigures()
        hosts.stop()
    }

    // MARK: Steps

    /// Step 1: every feed added through discovery and a first fetch, up to 4 at once.
    private func subscribe() async throws {
        let urls = hosts.urls(layout: layout)
        let library = self.library
        let (added, seconds) = try await Timing.measure {
            try await withThrowingTaskGroup(of: Int.self) { group in
                var next = 0
                var added = 0
                func start() {
                    guard next < urls.count else { return }
                    let url = urls[next]
                    group.addTask { try await library.add(url).entries }
                    next += 1
                }
                for _ in 0..<4 { start() }
                // A line per tenth of the feeds: whether the rate holds as the store grows.
                let clock = ContinuousClock()
                var lap = clock.now
                var done = 0
                let tenth = max(1, urls.count / 10)
                while let entries = try await group.next() {
                    added += entries
                    done += 1
                    if done.isMultiple(of: tenth) {
                        let seconds = Timing.seconds(clock.now - lap)
                        lap = clock.now
                        print(
                            String(
                                format: "  subscribed %d of %d feeds; the last %d in %.2f s (%.0f entries/s)", done,
                                urls.count, tenth, seconds, Double(tenth * options.entries) / seconds))
                    }
                    start()
                }
                return added
            }
        }
        let expected = options.feeds * options.entries
        guard added == expected else { throw BenchError("subscribed \(added) entries, expected \(expected)") }
        let rate = Double(added) / seconds
        report.add(
            "1 subscribe \(options.feeds) feeds (add, 4 at once)", feeds: seconds,
            note: String(format: "%.0f entries/s, %.1f feeds/s", rate, Double(options.feeds) / seconds))
        report.summarize(
            String(
                format: "subscribe: %d feeds, %d entries in %.2f s (%.0f entries/s) on %d hosts", options.feeds,
                added, seconds, rate, layout))
    }

    /// Step 2: a refresh where every server answers 304.
    private func refreshUnchanged(after: String? = nil) async throws {
        let library = self.library
        let (result, seconds) = await Timing.measure { await library.refresh() }
        guard result.feeds.count == options.feeds, result.notModified == options.feeds else {
            throw BenchError(
                "refresh with nothing changed: \(result.notModified) of \(result.feeds.count) not modified, "
                    + "expected all \(options.feeds); first failure: \(result.failed.first?.error ?? "none")")
        }
        let label = hostsLabel + (after.map { ", \($0)" } ?? "")
        report.add(
            "2 refresh, all 304 (\(label))", feeds: seconds,
            note: String(format: "%.0f feeds/s", Double(options.feeds) / seconds))
        report.summarize(
            String(format: "refresh all 304 (%@): %d not modified in %.2f s", label, result.notModified, seconds))
    }

    /// Step 3: `changed` feeds publish 5 entries (their windows move), then a refresh.
    private func refreshChanged() async throws {
        let stride = options.feeds / options.changed
        let changed = (0..<options.changed).map { $0 * stride + $0 % stride }
        for feed in changed { hosts.publish(feed) }
        let library = self.library
        let (result, seconds) = await Timing.measure { await library.refresh() }
        let updated = result.feeds.filter { $0.status == .updated }.count
        let expectedNew = options.changed * corpus.shift
        guard updated == options.changed, result.newEntries == expectedNew,
            result.notModified == options.feeds - options.changed
        else {
            throw BenchError(
                "refresh with \(options.changed) changed: \(updated) updated, \(result.newEntries) new, "
                    + "\(result.notModified) not modified, \(result.failed.count) failed; expected "
                    + "\(options.changed), \(expectedNew), \(options.feeds - options.changed), 0")
        }
        report.add(
            "3 refresh, \(options.changed) changed (\(hostsLabel))", feeds: seconds,
            note: "\(updated) updated, \(result.newEntries) new, \(result.notModified) 304")
        report.summarize(
            String(
                format: "refresh %d changed (%@): %d updated, %d new entries, %d not modified in %.2f s",
                options.changed, hostsLabel, updated, result.newEntries, result.notModified, seconds))
    }

    /// Step 4: `feeds entries --unread --limit 50`.
    private func unreadEntries(_ baseline: Baseline) async throws {
        var query = EntryQuery()
        query.unreadOnly = true
        query.limit = 50
        let library = self.library
        let (feedsTime, baselineTime, rows) = try await compare(
            feeds: { try await library.entries(query).map(\.id) },
            baseline: { try baseline.unreadEntries(limit: 50).map(\.id) })
        let same = rows.feeds == rows.baseline
        guard rows.feeds.count == min(50, options.feeds * options.entries) else {
            throw BenchError("entries --unread --limit 50 answered \(rows.feeds.count) entries")
        }
        report.add(
            "4 entries --unread --limit 50", feeds: feedsTime, baseline: baselineTime,
            note: "\(rows.feeds.count) rows" + (same ? ", same as baseline" : ", DIFFERENT from baseline"))
        report.summarize(
            String(
                format: "entries --unread --limit 50: %.2f ms (baseline %.2f ms, %.2fx), median of %d",
                feedsTime * 1000, baselineTime * 1000, feedsTime / baselineTime, Self.queryRuns))
        let ratio = feedsTime / baselineTime
        if ratio > 10 || feedsTime > 0.1 {
            print("entries is slow (\(String(format: "%.1fx", ratio))); baseline plan:")
            for step in try baseline.plan(Baseline.unreadSQL) { print("  " + step) }
        }
    }

    /// Step 5: `feeds search WORD`, limit 50.
    private func search(_ word: String, _ baseline: Baseline) async throws {
        let library = self.library
        let hits = try baseline.integer(
            "SELECT count(*) FROM \"Entry_search\" WHERE \"Entry_search\" MATCH '\"\(word)\"*'")
        let (feedsTime, baselineTime, rows) = try await compare(
            feeds: { try await library.search(word, limit: 50).map(\.id) },
            baseline: { try baseline.search(word, limit: 50).map(\.id) })
        guard rows.feeds.count == min(50, hits) else {
            throw BenchError("search \(word) answered \(rows.feeds.count) of \(hits) hits")
        }
        let same = rows.feeds == rows.baseline
        report.add(
            "5 search \"\(word)\" (\(hits) hits)", feeds: feedsTime, baseline: baselineTime,
            note: "\(rows.feeds.count) rows" + (same ? ", same as baseline" : ", DIFFERENT order from baseline"))
        report.summarize(
            String(
                format: "search %@ (%d hits, 50 shown): %.2f ms (baseline %.2f ms, %.2fx), median of %d", word, hits,
                feedsTime * 1000, baselineTime * 1000, feedsTime / baselineTime, Self.queryRuns))
    }

    /// Step 6: `feeds list`: every feed with its entry and unread counts. The first call
    /// gets `listDeadline`: past it the step is reported as not finished and the run goes
    /// on (the call is left running; the process ends after the report), so one slow query
    /// cannot hold the whole benchmark.
    private func feedList(_ baseline: Baseline) async throws {
        let library = self.library
        let sql = """
            SELECT f."url", f."title", count(e."_pk"), coalesce(sum(e."read" = 0), 0) FROM "Feed" f
            LEFT JOIN "Entry" e ON e."feed" = f."_pk" AND e."removed" = 0 GROUP BY f."_pk" ORDER BY f."title", f."url"
            """
        let statement = try baseline.database.prepare(sql)
        func baselineCounts() throws -> [Int] {
            statement.reset()
            var counts: [Int] = []
            while try statement.step() { counts.append(Int(statement.int64(2))) }
            return counts
        }
        let (baselineRows, baselineFirst) = try await Timing.measure { try baselineCounts() }
        guard let (rows, first) = try await firstList(library) else {
            report.add(
                "6 feeds() (list with counts)", feeds: options.listDeadline, baseline: baselineFirst,
                note: "NOT FINISHED in \(Int(options.listDeadline)) s (abandoned)")
            report.summarize(
                String(
                    format: "feeds(): not finished in %.0f s (baseline %.2f ms for %d feeds)", options.listDeadline,
                    baselineFirst * 1000, baselineRows.count))
            return
        }
        var feedsTime = first
        var baselineTime = baselineFirst
        var runs = 1
        if first < 1 {
            runs = 5
            (feedsTime, baselineTime, _) = try await compare(
                runs: runs, feeds: { try await library.feeds().map(\.entries) }, baseline: baselineCounts)
        }
        let total = rows.reduce(0, +)
        guard rows.count == options.feeds, total == baselineRows.reduce(0, +) else {
            throw BenchError("feeds() listed \(rows.count) feeds, \(total) entries")
        }
        report.add(
            "6 feeds() (list with counts)", feeds: feedsTime, baseline: baselineTime,
            note: "\(rows.count) feeds, \(total) entries, median of \(runs)")
        report.summarize(
            String(
                format: "feeds(): %d feeds with counts in %.2f ms (baseline %.2f ms, %.2fx), median of %d",
                rows.count, feedsTime * 1000, baselineTime * 1000, feedsTime / baselineTime, runs))
    }

    /// The first `feeds()`: its entry counts and seconds, or `nil` past `listDeadline`.
    private func firstList(_ library: FeedLibrary) async throws -> ([Int], Double)? {
        var outcome: Result<([Int], Double), any Error>?
        Task { @MainActor in
            do {
                let (rows, seconds) = try await Timing.measure { try await library.feeds().map(\.entries) }
                outcome = .success((rows, seconds))
            } catch {
                outcome = .failure(error)
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(options.listDeadline)
        while outcome == nil, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return try outcome?.get()
    }

    /// Step 7: the store's size on disk and the process's peak memory.
    private func storeFigures() {
        let files = ["", "-wal", "-shm"].map { storeURL.path + $0 }
        let bytes = files.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        let peak = ProcessStatus.peakResidentBytes
        let entries = options.feeds * options.entries + 2 * options.changed * corpus.shift
        report.summarize(
            String(
                format: "store: %.1f MB with its WAL (%.0f bytes/entry); peak RSS %@", Double(bytes) / 1e6,
                Double(bytes) / Double(entries), peak.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "unknown"
            ))
    }

    // MARK: Helpers

    private var hostsLabel: String { layout == 1 ? "1 host" : "\(layout) hosts" }

    /// Opens a new FeedLibrary on the store with its feeds at the servers of `layout` (the
    /// first server serves every feed). The old library is closed first; the URLs are
    /// changed with the sqlite3 API, the only thing that moves.
    private func useLayout(_ layout: Int) throws {
        guard layout != self.layout else {
            library = try FeedLibrary(storeURL: nil)
            library = try FeedLibrary(storeURL: storeURL)
            return
        }
        let from = hosts.urls(layout: self.layout)
        let to = hosts.urls(layout: layout)
        library = try FeedLibrary(storeURL: nil)
        let database = try RawDatabase(path: storeURL.path)
        try database.execute("BEGIN IMMEDIATE")
        let update = try database.prepare("UPDATE \"Feed\" SET \"url\" = ? WHERE \"url\" = ?")
        for (old, new) in zip(from, to) {
            update.reset()
            update.bind(1, new)
            update.bind(2, old)
            _ = try update.step()
        }
        try database.execute("COMMIT")
        library = try FeedLibrary(storeURL: storeURL)
        self.layout = layout
    }

    /// Medians of `runs` runs of each side, alternating (after one warm-up run each), so
    /// that noise on the shared machine falls on both; and the last answers, to compare.
    private func compare<Row: Equatable>(
        runs: Int = BenchRun.queryRuns, feeds: () async throws -> [Row], baseline: () throws -> [Row]
    ) async throws -> (feeds: Double, baseline: Double, rows: (feeds: [Row], baseline: [Row])) {
        var feedsRows = try await feeds()
        var baselineRows = try baseline()
        var feedsSamples: [Double] = []
        var baselineSamples: [Double] = []
        for _ in 0..<runs {
            let (rows, seconds) = try await Timing.measure { try await feeds() }
            feedsRows = rows
            feedsSamples.append(seconds)
            let (base, baseSeconds) = try await Timing.measure { try baseline() }
            baselineRows = base
            baselineSamples.append(baseSeconds)
        }
        return (Timing.median(feedsSamples), Timing.median(baselineSamples), (feedsRows, baselineRows))
    }

    private static func measureSync<Value>(_ body: () throws -> Value) rethrows -> (Value, Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        return (value, Timing.seconds(clock.now - start))
    }
}
