import Foundation

/// The human output of each command: short lines and aligned columns, dates in UTC.
public enum FeedsText {
    /// `2026-11-05 14:30`, or `-` when there is none.
    public static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        let style = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
            .year().month().day().time(includingFractionalSeconds: false)
        return String(date.formatted(style).prefix(16))
    }

    /// `text` without control characters (C0, DEL, C1) but newline and tab: safe to write to
    /// a terminal whatever a feed put in it.
    public static func terminalSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var safe = String.UnicodeScalarView()
        safe.append(contentsOf: text.unicodeScalars.lazy.filter { !isUnsafe($0) })
        return String(safe)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
    }

    /// `text` on one line: each run of white space that holds a line break becomes one
    /// space, so a value a feed sent (an author, a title) cannot start a line of its own and
    /// pass for another field or row.
    public static func oneLine(_ text: String) -> String {
        let breaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
        guard text.unicodeScalars.contains(where: breaks.contains) else { return text }
        var line = String.UnicodeScalarView()
        var pendingBreak = false
        for scalar in text.unicodeScalars {
            if breaks.contains(scalar) {
                pendingBreak = true
                while line.last.map({ $0 == " " || $0 == "\t" }) == true { line.removeLast() }
            } else if pendingBreak, scalar == " " || scalar == "\t" {
                continue
            } else {
                if pendingBreak, !line.isEmpty { line.append(" ") }
                pendingBreak = false
                line.append(scalar)
            }
        }
        return String(line)
    }

    public static func added(_ feed: FeedSummary) -> String {
        "Added \(quoted(oneLine(feed.title))) (\(count(feed.entries, "entry", "entries"))): \(feed.url)\n"
    }

    public static func feeds(_ feeds: [FeedSummary]) -> String {
        guard !feeds.isEmpty else { return "No feeds. Subscribe with 'feeds add URL'.\n" }
        var rows = [["UNREAD", "ENTRIES", "TITLE", "URL"]]
        var notes: [Int: String] = [:]
        for feed in feeds {
            rows.append([String(feed.unread), String(feed.entries), feed.title.isEmpty ? "-" : feed.title, feed.url])
            if let error = feed.lastError { notes[rows.count - 1] = "    last error: \(error)" }
        }
        return columns(rows, rightAligned: [0, 1], notes: notes)
    }

    /// The summary after a refresh; the failures, with their errors, go to stderr apart.
    public static func refreshSummary(_ report: RefreshReport) -> String {
        let skipped = report.feeds.filter { $0.status == .skipped }.count
        var parts = [
            count(report.newEntries, "new entry", "new entries"),
            "\(report.updatedEntries) updated",
            "\(report.notModified) not modified",
            "\(report.failed.count) failed",
        ]
        if skipped > 0 { parts.append("\(skipped) backed off") }
        return "Refreshed \(count(report.feeds.count, "feed", "feeds")): " + parts.joined(separator: ", ") + "\n"
    }

    /// One failed feed of a refresh, for stderr: its error, prefixed with its URL unless the
    /// error names it already.
    public static func failure(_ result: FeedRefreshResult) -> String {
        let error = result.error ?? "failed"
        return error.contains(result.url) ? error : "\(result.url): \(error)"
    }

    /// A terminal's progress line, redrawn in place.
    public static func progress(_ progress: RefreshProgress) -> String {
        "\r\u{1B}[K[\(progress.done)/\(progress.total)] \(progress.url)"
    }

    public static func entries(_ entries: [EntrySummary]) -> String {
        guard !entries.isEmpty else { return "No entries.\n" }
        var rows: [[String]] = []
        for entry in entries {
            let flags = (entry.read ? " " : "N") + (entry.starred ? "*" : " ")
            rows.append([
                String(entry.id), date(entry.published), flags, entry.title.isEmpty ? "(untitled)" : entry.title,
            ])
        }
        return columns(rows, rightAligned: [0], notes: [:])
    }

    public static func entry(_ detail: EntryDetail) -> String {
        let entry = detail.summary
        var lines = [entry.title.isEmpty ? "(untitled)" : oneLine(entry.title), ""]
        var fields: [(String, String)] = [("Id", String(entry.id)), ("Feed", entry.feed)]
        if let link = entry.link { fields.append(("Link", link)) }
        if let author = entry.author { fields.append(("Author", author)) }
        fields.append(("Published", date(entry.published)))
        if let updated = detail.updated { fields.append(("Updated", date(updated))) }
        fields.append(("State", (entry.read ? "read" : "unread") + (entry.starred ? ", starred" : "")))
        for enclosure in detail.enclosures {
            let type = enclosure.type.map { " (\($0))" } ?? ""
            fields.append(("Enclosure", enclosure.url + type))
        }
        let width = fields.map(\.0.count).max() ?? 0
        lines += fields.map { ($0.0 + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0) + oneLine($0.1) }
        if !detail.text.isEmpty { lines += ["", detail.text] }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func marked(_ ids: [Int64], _ change: EntryChange) -> String {
        let what =
            switch change {
            case .read(let read): read ? "read" : "unread"
            case .starred(let starred): starred ? "starred" : "unstarred"
            case .removed: "deleted"
            }
        return
            "Marked \(count(ids.count, "entry", "entries")) \(what): \(ids.map(String.init).joined(separator: " "))\n"
    }

    public static func search(_ results: [SearchResult], for text: String) -> String {
        guard !results.isEmpty else { return "No entries match \(quoted(text)).\n" }
        var lines: [String] = []
        let width = results.map { String($0.id).count }.max() ?? 0
        for result in results {
            let id = String(repeating: " ", count: width - String(result.id).count) + String(result.id)
            lines.append("\(id)  \(result.title.isEmpty ? "(untitled)" : oneLine(result.title))")
            lines.append(String(repeating: " ", count: width + 2) + oneLine(result.snippet))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func bookmark(_ bookmark: BookmarkSummary) -> String {
        let tags = bookmark.tags.isEmpty ? "" : " " + bookmark.tags.map { "#\($0)" }.joined(separator: " ")
        return "Bookmarked \(bookmark.url)\(tags)\n"
    }

    public static func bookmarks(_ bookmarks: [BookmarkSummary]) -> String {
        guard !bookmarks.isEmpty else { return "No bookmarks.\n" }
        var lines: [String] = []
        for bookmark in bookmarks {
            lines.append(
                "\(date(bookmark.created))  \(oneLine(bookmark.title.isEmpty ? bookmark.url : bookmark.title))")
            let tags = bookmark.tags.map { "#\($0)" }.joined(separator: " ")
            lines.append("                  \(bookmark.url)" + (tags.isEmpty ? "" : "  \(tags)"))
            if !bookmark.note.isEmpty { lines.append("                  \(oneLine(bookmark.note))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func imported(_ report: BookmarkImportReport, from url: String) -> String {
        (report.pushed.map(pushed) ?? "")
            + "Imported \(count(report.inserted + report.updated, "bookmark", "bookmarks")) (\(report.inserted) new, "
            + "\(report.updated) updated) in \(count(report.pages, "page", "pages")) from \(url)\n"
    }

    public static func imported(_ report: OPMLImportReport, from file: String) -> String {
        "Imported \(count(report.feeds, "feed", "feeds")) in \(count(report.folders, "folder", "folders")) "
            + "from \(file)\n"
    }

    static func count(_ number: Int, _ one: String, _ many: String) -> String {
        "\(number) \(number == 1 ? one : many)"
    }

    static func quoted(_ text: String) -> String { "\u{201C}\(text)\u{201D}" }

    /// Rows padded to their widest cell; the last column is never padded.
    private static func columns(_ rows: [[String]], rightAligned: Set<Int>, notes: [Int: String]) -> String {
        let rows = rows.map { $0.map(oneLine) }
        guard let columnCount = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: columnCount)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var lines: [String] = []
        for (rowIndex, row) in rows.enumerated() {
            var cells: [String] = []
            for (index, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                if rightAligned.contains(index) {
                    cells.append(pad + cell)
                } else {
                    cells.append(index == row.count - 1 ? cell : cell + pad)
                }
            }
            lines.append(cells.joined(separator: "  "))
            if let note = notes[rowIndex] { lines.append(oneLine(note)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
