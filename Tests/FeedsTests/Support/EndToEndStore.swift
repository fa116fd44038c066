import Foundation
import TestProcesses
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store in a temporary folder that several runs of the built `feeds` share (as a user's
/// store is shared by the commands they type), read back with the `sqlite3` shell.
struct EndToEndStore {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var path: String { folder.appendingPathComponent("feeds.sqlite").path }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// `feeds arguments...` against this store (through `FEEDS_STORE`).
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> FeedsBinary.Result {
        try FeedsBinary.run(arguments, environment: ["FEEDS_STORE": path].merging(environment) { $1 })
    }

    /// `feeds arguments... --json`, which must succeed, its stdout decoded as `T`.
    func json<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
        let result = try run(arguments + ["--json"])
        try #require(result.status == 0, "feeds \(arguments.joined(separator: " ")): \(result.standardError)")
        return try JSONDecoder().decode(T.self, from: Data(result.standardOutput.utf8))
    }

    /// What the `sqlite3` shell prints for `sql`, trimmed.
    func sql(_ sql: String) throws -> String {
        try EndToEndStore.sqlite(path, sql)
    }

    /// A `SELECT count(*) ...` or any query answering one whole number.
    func count(_ sql: String) throws -> Int {
        let text = try self.sql(sql)
        return try #require(Int(text), "not a number from \(sql): \(text)")
    }

    /// Rows that share a feed and an identity: there must never be any.
    func duplicateEntries() throws -> Int {
        try count("SELECT count(*) FROM (SELECT feed, identity FROM Entry GROUP BY feed, identity HAVING count(*) > 1)")
    }

    static func sqlite(_ path: String, _ sql: String) throws -> String {
        let process = try ChildProcess(
            "/usr/bin/sqlite3", [path, sql], standardInput: .nullDevice, standardOutput: .pipe, standardError: .pipe)
        let data = process.standardOutputReader!.readDataToEndOfFile()
        let problem = process.standardErrorReader!.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "sqlite3 \(sql): \(String(decoding: problem, as: UTF8.self))")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `feeds arguments...` without waiting: for runs at once and runs killed midway.
    func start(_ arguments: [String]) throws -> RunningFeeds {
        try RunningFeeds(arguments, store: path, folder: folder)
    }
}

/// A `feeds` process that runs while the test goes on.
final class RunningFeeds {
    let process: ChildProcess
    private let out: URL
    private let err: URL

    init(_ arguments: [String], store: String, folder: URL) throws {
        let binary = try #require(FeedsBinary.url, "the feeds binary was not built")
        let name = UUID().uuidString
        out = folder.appendingPathComponent("\(name).out")
        err = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDS_STORE"] = store
        process = try ChildProcess(
            binary.path, arguments, environment: environment, standardInput: .nullDevice,
            standardOutput: .file(out.path), standardError: .file(err.path))
    }

    /// SIGKILL: no handler, no cleanup, as a power cut or the OOM killer does it.
    func killHard() { process.kill() }

    /// Waits for the end, at most `seconds`: a run still going then is killed and recorded
    /// as an issue (a hang must fail the test, not stall the suite).
    func finish(within seconds: Double) throws -> (
        status: Int32, reason: ChildProcess.TerminationReason, standardOutput: String, standardError: String
    ) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            killHard()
            Issue.record("feeds \(process.arguments.joined(separator: " ")) still ran after \(seconds) s")
        }
        return try finish()
    }

    /// Waits for the end; answers the status (or the signal) and the output.
    func finish() throws -> (
        status: Int32, reason: ChildProcess.TerminationReason, standardOutput: String, standardError: String
    ) {
        process.waitUntilExit()
        return (
            process.terminationStatus, process.terminationReason, try String(contentsOf: out, encoding: .utf8),
            try String(contentsOf: err, encoding: .utf8)
        )
    }
}

/// Feed documents written for these tests: each item is (id, title, date, HTML body).
enum EndToEndDocuments {
    struct Item {
        var id: String
        var title: String
        var date: String?
        var html: String = ""
        var link: String?
    }

    /// RFC 822, as RSS writes it, from an RFC 3339 UTC string.
    static func rfc822(_ text: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: instant(text))
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func rss(title: String, site: String = "https://harbour.example/", items: [Item]) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(escaped(title))</title><link>\(site)</link>
            <description>written for the feeds end-to-end tests</description>

            """
        for item in items {
            xml += "<item><guid isPermaLink=\"false\">\(escaped(item.id))</guid><title>\(escaped(item.title))</title>"
            if let link = item.link { xml += "<link>\(escaped(link))</link>" }
            if let date = item.date { xml += "<pubDate>\(rfc822(date))</pubDate>" }
            xml += "<description>\(escaped(item.html))</description></item>\n"
        }
        return xml + "</channel></rss>\n"
    }

    static func atom(title: String, items: [Item]) -> String {
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>\(escaped(title))</title>
            <id>urn:e2e:\(escaped(title))</id><updated>2026-11-06T00:00:00Z</updated>
            <link rel="alternate" href="https://atom.example/"/>

            """
        for item in items {
            xml += "<entry><id>\(escaped(item.id))</id><title>\(escaped(item.title))</title>"
            if let link = item.link { xml += "<link rel=\"alternate\" href=\"\(escaped(link))\"/>" }
            if let date = item.date { xml += "<published>\(date)</published><updated>\(date)</updated>" }
            xml += "<content type=\"html\">\(escaped(item.html))</content></entry>\n"
        }
        return xml + "</feed>\n"
    }

    static func jsonFeed(title: String, items: [Item]) throws -> String {
        let list: [[String: Any]] = items.map { item in
            var object: [String: Any] = ["id": item.id, "title": item.title, "content_html": item.html]
            if let link = item.link { object["url"] = link }
            if let date = item.date { object["date_published"] = date }
            return object
        }
        let feed: [String: Any] = [
            "version": "https://jsonfeed.org/version/1.1", "title": title, "home_page_url": "https://json.example/",
            "items": list,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: feed, options: [.sortedKeys]), as: UTF8.self)
    }

    static func html(linkingTo href: String?, type: String = "application/rss+xml") -> String {
        let link = href.map { "<link rel=\"alternate\" type=\"\(type)\" title=\"Feed\" href=\"\($0)\">" } ?? ""
        return """
            <!DOCTYPE html>
            <html><head><title>A harbour blog</title>\(link)</head>
            <body><h1>A harbour blog</h1><p>Posts about boats.</p></body></html>

            """
    }
}

/// `feeds list --json`'s objects, typed: a number where a number must be.
struct ListedFeed: Decodable, Equatable {
    var url: String
    var title: String
    var site: String?
    var entries: Int
    var unread: Int
    var lastError: String?
}

/// `feeds refresh --json`.
struct RefreshJSON: Decodable {
    struct Feed: Decodable {
        var url: String
        var status: String
        var new: Int
        var error: String?
    }
    var feeds: [Feed]

    func status(of url: String) -> String? { feeds.first { $0.url == url }?.status }
}

/// `feeds entries --json`'s objects.
struct ListedEntry: Decodable, Equatable {
    var id: Int64
    var feed: String
    var title: String
    var link: String?
    var author: String?
    var published: String?
    var read: Bool
    var starred: Bool
}

/// `feeds search --json`'s objects.
struct SearchHit: Decodable {
    var id: Int64
    var feed: String
    var title: String
    var link: String?
    var snippet: String
}

/// `feeds bookmarks --json`'s objects.
struct ListedBookmark: Decodable {
    var url: String
    var title: String
    var note: String
    var tags: [String]
    var created: String
}

/// The keys of each object of a JSON array, for checks that no field is missing or extra.
func objectKeys(_ text: String) throws -> [Set<String>] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    let objects = try #require(value as? [[String: Any]], "not an array of objects: \(text)")
    return objects.map { Set($0.keys) }
}
