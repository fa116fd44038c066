import Foundation

extension DemoContent {
    /// Thirty invented bookmarks (two pages of the API at its demo page size), newest last,
    /// with tags in mixed case: `Swift` and `swift` are one tag to `feeds`.
    public static let bookmarks: [DemoBookmark] = {
        let rows: [(String, String, [String], String)] = [
            (
                "https://swiftnotes.example/actors-explained", "Actors, explained with a bakery queue",
                ["Swift", "concurrency"], ""
            ),
            (
                "https://linuxcorner.example/systemd-timers", "Replacing cron with systemd timers", ["Linux"],
                "try on the home server"
            ),
            ("https://httpguide.example/conditional-get", "Conditional GET in five minutes", ["HTTP", "caching"], ""),
            ("https://sqlitetips.example/fts5-ranking", "Ranking FTS5 results with bm25", ["SQLite", "search"], ""),
            ("https://swiftnotes.example/result-builders", "Result builders from scratch", ["swift"], ""),
            ("https://feedcraft.example/atom-vs-rss", "Atom or RSS? A field guide", ["feeds", "RSS"], ""),
            ("https://feedcraft.example/json-feed-1-1", "What changed in JSON Feed 1.1", ["Feeds", "json"], ""),
            (
                "https://linuxcorner.example/journalctl-filters", "journalctl filters worth remembering",
                ["linux", "logs"], ""
            ),
            ("https://httpguide.example/retry-after", "Honouring Retry-After", ["http"], "for the refresh backoff"),
            ("https://gardenlog.example/winter-kale", "Kale that survives frost", ["garden"], ""),
            ("https://gardenlog.example/compost-temps", "Reading a compost thermometer", ["Garden", "science"], ""),
            (
                "https://harbourlane.example/journal/waking-the-starter", "Waking a sourdough starter", ["baking"],
                "Barnacle!"
            ),
            ("https://sqlitetips.example/wal-mode", "WAL mode, readers and the single writer", ["sqlite"], ""),
            (
                "https://swiftnotes.example/sendable-closures", "When a closure must be Sendable",
                ["Swift", "Concurrency"], ""
            ),
            ("https://typesetting.example/hanging-punctuation", "Hanging punctuation on the web", ["typography"], ""),
            ("https://maps.example/tide-charts", "Reading tide charts", ["sea"], ""),
            ("https://skyalmanac.example/2026/11/leonids", "Leonids 2026", ["astronomy", "Sky"], "set an alarm"),
            ("https://bikeshed.example/chain-wear", "Measuring chain wear", ["bikes"], ""),
            ("https://bikeshed.example/winter-tyres", "Studded tyres for icy commutes", ["Bikes"], ""),
            ("https://feedcraft.example/opml-folders", "OPML folders that survive export", ["feeds", "OPML"], ""),
            ("https://httpguide.example/etags-weak-strong", "Weak and strong ETags", ["HTTP"], ""),
            ("https://linuxcorner.example/xdg-dirs", "The XDG base directories", ["Linux", "desktop"], ""),
            ("https://swiftnotes.example/swift-testing-tour", "A tour of Swift Testing", ["swift", "testing"], ""),
            ("https://cookbook.example/miso-soup", "Ten-minute miso soup", ["cooking"], ""),
            ("https://cookbook.example/rye-crackers", "Crackers from starter discard", ["Cooking", "baking"], ""),
            ("https://typesetting.example/variable-fonts", "Variable fonts in practice", ["Typography"], ""),
            ("https://sqlitetips.example/json-functions", "SQLite's JSON functions", ["SQLite", "json"], ""),
            ("https://maps.example/lighthouse-list", "Lighthouses of the north coast", ["sea", "travel"], ""),
            ("https://skyalmanac.example/diy", "Astronomy projects for a weekend", ["Astronomy", "diy"], ""),
            ("https://swiftnotes.example/noncopyable-types", "Noncopyable types without tears", ["Swift"], ""),
        ]
        let start = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
        return rows.enumerated().map { index, row in
            DemoBookmark(
                id: index + 1, url: row.0, title: row.1, description: "", notes: row.3, tags: row.2,
                dateAdded: start.addingTimeInterval(Double(index) * 86_400 + 3_600))
        }
    }()
}
