import Foundation

/// The table printed at the end: one row per measured step, FeedLibrary's time beside the
/// hand-written baseline's where there is one, and a one-line summary per step after it.
struct Report {
    struct Row {
        var step: String
        var feeds: Double
        var baseline: Double?
        var note: String
    }

    private(set) var rows: [Row] = []
    private(set) var summaries: [String] = []

    mutating func add(_ step: String, feeds: Double, baseline: Double? = nil, note: String = "") {
        rows.append(Row(step: step, feeds: feeds, baseline: baseline, note: note))
    }

    mutating func summarize(_ line: String) { summaries.append(line) }

    var text: String {
        let width = max(4, rows.map(\.step.count).max() ?? 0)
        var lines = [
            pad("step", width) + "  " + right("feeds", 11) + "  " + right("baseline", 11) + "  " + right("ratio", 7)
                + "  note"
        ]
        lines.append(String(repeating: "-", count: lines[0].count + 20))
        for row in rows {
            let baseline = row.baseline.map(Self.duration) ?? "-"
            let ratio = row.baseline.map { String(format: "%.2fx", row.feeds / $0) } ?? "-"
            lines.append(
                pad(row.step, width) + "  " + right(Self.duration(row.feeds), 11) + "  " + right(baseline, 11) + "  "
                    + right(ratio, 7) + "  " + row.note)
        }
        return (lines + [""] + summaries).joined(separator: "\n")
    }

    /// Seconds from 1 s up, milliseconds below.
    static func duration(_ seconds: Double) -> String {
        seconds >= 1 ? String(format: "%.2f s", seconds) : String(format: "%.2f ms", seconds * 1000)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
