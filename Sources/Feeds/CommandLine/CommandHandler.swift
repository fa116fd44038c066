import Foundation

/// One handler per command: read the parsed values, call `FeedLibrary`, format the answer.
/// Errors are thrown to `FeedsCommand`, which prints them naming `subject`.
struct CommandHandler {
    let library: FeedLibrary
    let command: ParsedCommand
    let output: CommandOutput

    /// What an error is about: the URL, ids or file the command named.
    var subject: String? {
        if let feed = command.value("feed"), command.id == .read { return feed }
        return command.positionals.isEmpty ? nil : command.positionals.joined(separator: " ")
    }

    /// The error's message, prefixed with the subject when it names none of the command's
    /// URLs or ids (an id counts only as a whole word: `12` does not name `1`).
    func describe(_ error: any Error) -> String {
        let message = (error as? FeedsError)?.message ?? String(describing: error)
        let words = Set(message.split { !$0.isNumber }.map(String.init))
        let isIDs = command.spec.positionals.first?.kind == .id && command.value("feed") == nil
        let named = command.positionals.contains { isIDs ? words.contains($0) : message.contains($0) }
        guard let subject, !named, !(command.value("feed").map { message.contains($0) } ?? false) else {
            return message
        }
        if isIDs { return "\(command.positionals.count == 1 ? "entry" : "entries") \(subject): \(message)" }
        return "\(subject): \(message)"
    }

    private var json: Bool { command.flag("json") }

    /// Human output: what feeds sent goes to a terminal, so no control character but newline
    /// and tab is written (no escape sequence a feed planted clears the screen or retitles
    /// the window).
    private func print(_ text: String) { output.standardOutput(FeedsText.terminalSafe(text)) }

    private func printJSON(_ value: JSONValue) { output.standardOutput(value.rendered() + "\n") }

    func run() async throws -> Int32 {
        switch command.id {
        case .add:
            print(FeedsText.added(try await library.add(command.positionals[0])))
        case .remove:
            try await library.remove(command.positionals[0])
            print("Removed \(command.positionals[0])\n")
        case .list:
            let feeds = try await library.feeds()
            json ? printJSON(FeedsJSON.feeds(feeds)) : print(FeedsText.feeds(feeds))
        case .refresh:
            return await refresh()
        case .entries:
            var query = EntryQuery()
            query.unreadOnly = command.flag("unread")
            query.starredOnly = command.flag("starred")
            query.feed = command.value("feed")
            query.since = command.value("since").flatMap(DateArgument.parse)
            if let limit = command.value("limit").flatMap({ Int($0) }) { query.limit = limit }
            let entries = try await library.entries(query)
            json ? printJSON(FeedsJSON.entries(entries)) : print(FeedsText.entries(entries))
        case .show:
            print(FeedsText.entry(try await library.entry(id: command.ids[0])))
        case .read:
            if let feed = command.value("feed") {
                let changed = try await library.markAllRead(feed: feed)
                print("Marked \(FeedsText.count(changed, "entry", "entries")) of \(feed) read\n")
            } else {
                try await mark(.read(true))
            }
        case .unread: try await mark(.read(false))
        case .star: try await mark(.starred(true))
        case .unstar: try await mark(.starred(false))
        case .delete: try await mark(.removed)
        case .search:
            let results = try await library.search(command.positionals[0])
            json ? printJSON(FeedsJSON.search(results)) : print(FeedsText.search(results, for: command.positionals[0]))
        case .bookmarkAdd:
            let bookmark = try await library.addBookmark(
                command.positionals[0], tags: command.values("tag"), note: command.value("note"))
            print(FeedsText.bookmark(bookmark))
        case .bookmarkRemove:
            try await library.removeBookmark(command.positionals[0])
            print("Removed bookmark \(command.positionals[0])\n")
        case .bookmarkTag:
            print(
                FeedsText.bookmark(try await library.tagBookmark(command.positionals[0], tags: command.values("tag"))))
        case .bookmarksPush:
            let report = try await library.pushBookmarks(to: command.positionals.first, token: command.value("token"))
            print(FeedsText.pushed(report))
            return report.failed.isEmpty ? FeedsCommand.success : FeedsCommand.failure
        case .status:
            let status = try await library.status()
            json ? printJSON(FeedsJSON.status(status)) : print(FeedsText.status(status))
        case .bookmarks:
            let bookmarks = try await library.bookmarks(tag: command.value("tag"))
            json ? printJSON(FeedsJSON.bookmarks(bookmarks)) : print(FeedsText.bookmarks(bookmarks))
        case .bookmarksImport:
            let url = command.positionals[0]
            print(
                FeedsText.imported(
                    try await library.importBookmarks(from: url, token: command.value("token")), from: url))
        case .opmlImport:
            let file = command.positionals[0]
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw FeedsError(.invalidInput, "\(file): cannot read it (\(error.localizedDescription))")
            }
            print(FeedsText.imported(try await library.importOPML(data), from: file))
        case .opmlExport:
            let xml = try await library.exportOPML()
            print(xml.hasSuffix("\n") ? xml : xml + "\n")
        case .demo, .help:
            preconditionFailure("\(command.id) is run by FeedsCommand")
        }
        return FeedsCommand.success
    }

    private func mark(_ change: EntryChange) async throws {
        try await library.mark(command.ids, change)
        print(FeedsText.marked(command.ids, change))
    }

    /// Progress on a terminal only; the summary on stdout (or JSON); each failure on stderr.
    private func refresh() async -> Int32 {
        let output = output
        var progress: (@Sendable (RefreshProgress) -> Void)?
        if output.isTerminal {
            progress = { @Sendable step in output.standardError(FeedsText.progress(step)) }
        }
        let report = await library.refresh(command.positionals.first, progress: progress)
        if output.isTerminal { output.standardError("\r\u{1B}[K") }
        json ? printJSON(FeedsJSON.refresh(report)) : print(FeedsText.refreshSummary(report))
        for failure in report.failed {
            output.standardError("feeds: \(FeedsText.terminalSafe(FeedsText.failure(failure)))\n")
        }
        return report.failed.isEmpty ? FeedsCommand.success : FeedsCommand.failure
    }
}
