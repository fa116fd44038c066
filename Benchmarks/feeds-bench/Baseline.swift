import Foundation

/// The hand-written side: the queries `feeds entries --unread` and `feeds search` need,
/// written once in SQL against the store's own tables, run through the sqlite3 C API with
/// prepared statements, the same columns read into structs. What Stash adds on top of this
/// (predicate translation, one object per row, faulting the feed) is the ratio.
final class Baseline {
    struct EntryRow: Equatable {
        var id: Int64
        var feed: String
        var title: String
        var link: String?
        var author: String?
        var published: Date?
        var read: Bool
        var starred: Bool
    }

    struct SearchRow: Equatable {
        var id: Int64
        var feed: String
        var title: String
        var link: String?
        var snippet: String
    }

    static let unreadSQL = """
        SELECT e."_pk", f."url", e."title", e."link", e."author", e."published", e."updated", e."read", e."starred"
        FROM "Entry" e LEFT JOIN "Feed" f ON f."_pk" = e."feed"
        WHERE e."removed" = 0 AND e."read" = 0 ORDER BY e."sortDate" DESC LIMIT ?
        """

    /// Ranked as Stash ranks (bm25, then the row), the snippet with Stash's default markers
    /// and length, the same MATCH expression (the word, as a prefix).
    static let searchSQL = """
        SELECT e."_pk", f."url", e."title", e."link", snippet("Entry_search", -1, '[', ']', '…', 12)
        FROM "Entry_search" JOIN "Entry" e ON e."_pk" = "Entry_search"."rowid"
        LEFT JOIN "Feed" f ON f."_pk" = e."feed"
        WHERE "Entry_search" MATCH ? AND e."removed" = 0 ORDER BY bm25("Entry_search"), e."_pk" LIMIT ?
        """

    let database: RawDatabase
    private let unread: RawDatabase.Statement
    private let searching: RawDatabase.Statement

    init(path: String) throws {
        database = try RawDatabase(path: path)
        unread = try database.prepare(Self.unreadSQL)
        searching = try database.prepare(Self.searchSQL)
    }

    func unreadEntries(limit: Int) throws -> [EntryRow] {
        unread.reset()
        unread.bind(1, Int64(limit))
        var rows: [EntryRow] = []
        while try unread.step() {
            let published = unread.text(5).flatMap(Self.date) ?? unread.text(6).flatMap(Self.date)
            rows.append(
                EntryRow(
                    id: unread.int64(0), feed: unread.text(1) ?? "", title: unread.text(2) ?? "", link: unread.text(3),
                    author: unread.text(4), published: published, read: unread.int64(7) != 0,
                    starred: unread.int64(8) != 0))
        }
        return rows
    }

    func search(_ word: String, limit: Int) throws -> [SearchRow] {
        searching.reset()
        searching.bind(1, "\"\(word.replacingOccurrences(of: "\"", with: "\"\""))\"*")
        searching.bind(2, Int64(limit))
        var rows: [SearchRow] = []
        while try searching.step() {
            rows.append(
                SearchRow(
                    id: searching.int64(0), feed: searching.text(1) ?? "", title: searching.text(2) ?? "",
                    link: searching.text(3), snippet: searching.text(4) ?? ""))
        }
        return rows
    }

    /// `EXPLAIN QUERY PLAN` of `sql`, one step a line, for the report.
    func plan(_ sql: String) throws -> [String] {
        try database.strings("EXPLAIN QUERY PLAN " + sql, column: 3)
    }

    /// Rows of `sql`'s first column as whole numbers (a count, a sum).
    func integer(_ sql: String) throws -> Int {
        Int(try database.strings(sql).first ?? "") ?? 0
    }

    /// The store's `2026-01-01T09:30:00.250Z`, read by hand as the baseline of a reader
    /// that knows its own format.
    private static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int {
            bytes[start..<(start + count)].reduce(0) { $0 * 10 + Int($1) - 48 }
        }
        let days = daysFromCivil(year: number(0, 4), month: number(5, 2), day: number(8, 2))
        let seconds = days * 86_400 + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2)
        let milliseconds = bytes.count >= 24 && bytes[19] == UInt8(ascii: ".") ? number(20, 3) : 0
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
