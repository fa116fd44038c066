import Foundation

/// What `feeds bookmarks push` and `feeds status` print.
extension FeedsText {
    /// `Pushed 2 changes to URL; 1 failed; 1 change waiting`, then one line per conflict and
    /// failure with the server's message.
    public static func pushed(_ report: BookmarkPushReport) -> String {
        var summary = "Pushed \(count(report.sent, "change", "changes")) to \(report.api)"
        if !report.conflicts.isEmpty {
            summary += "; \(count(report.conflicts.count, "conflict", "conflicts")) (the server's version kept)"
        }
        if !report.failed.isEmpty { summary += "; \(report.failed.count) failed" }
        summary += report.waiting == 0 ? "; nothing waiting" : "; \(count(report.waiting, "change", "changes")) waiting"
        var lines = [summary]
        for conflict in report.conflicts { lines.append("  conflict: " + problem(conflict)) }
        for failure in report.failed { lines.append("  failed: " + problem(failure)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `3 changes waiting to be pushed (1 refused: URL: HTTP 400: …)`.
    public static func status(_ status: LibraryStatus) -> String {
        var line =
            status.waiting == 0
            ? "Nothing waiting to be pushed"
            : "\(count(status.waiting, "change", "changes")) waiting to be pushed"
        if !status.refused.isEmpty {
            let refusals = status.refused.map { "\($0.url ?? "a deleted bookmark"): \(oneLine($0.message))" }
            line += " (\(status.refused.count) refused: \(refusals.joined(separator: "; ")))"
        }
        var lines = [line]
        if let api = status.api { lines.append("Bookmarks API: \(api)") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func problem(_ problem: BookmarkPushReport.Problem) -> String {
        let status = problem.status.map { ", \($0)" } ?? ""
        return "\(problem.url ?? "a deleted bookmark") (\(problem.method)\(status)): \(oneLine(problem.message))"
    }
}
