/// Every command of `feeds`, in the order `feeds --help` lists them. The parser, the usage
/// lines and the help are generated from this one table.
public enum CommandTable {
    /// `--store PATH`: accepted by every command, before or after its words.
    public static let store = CommandSpec.Option(
        "store", value: "PATH",
        help: "The store to use (default: $FEEDS_STORE, else $XDG_DATA_HOME/feeds/feeds.sqlite).")

    static let json = CommandSpec.Option("json", help: "Print JSON on stdout.")

    public static let commands: [CommandSpec] = [
        CommandSpec(
            .add, ["add"], summary: "Subscribe to a feed (an HTML page's feed link is followed).",
            details: "Fetches the feed and stores it with its entries; a failed add stores nothing.",
            positionals: [.init("URL", help: "The feed, or a page that links to one.")]),
        CommandSpec(
            .remove, ["remove"], summary: "Unsubscribe: the feed and its entries are deleted.",
            positionals: [.init("URL", help: "The feed's URL.")]),
        CommandSpec(
            .list, ["list"], summary: "List subscriptions with their entry and unread counts.",
            options: [json]),
        CommandSpec(
            .refresh, ["refresh"], summary: "Fetch every feed (or one) and store what is new.",
            details: """
                Feeds are fetched concurrently with conditional requests; failing feeds are backed \
                off unless named. Exits 1 when a feed failed.
                """,
            positionals: [.init("URL", .optional, help: "Only this feed (always fetched).")],
            options: [json]),
        CommandSpec(
            .entries, ["entries"], summary: "List entries, newest first (50 by default).",
            options: [
                .init("unread", help: "Only unread entries."),
                .init("starred", help: "Only starred entries."),
                .init("feed", value: "URL", help: "Only entries of this feed."),
                .init(
                    "since", value: "DATE", kind: .date,
                    help: "Only entries dated on or after DATE (ISO 8601; UTC when no zone is given)."),
                .init("limit", value: "N", kind: .count, help: "At most N entries (default 50)."),
                json,
            ]),
        CommandSpec(
            .show, ["show"], summary: "Show one entry whole.",
            positionals: [.init("ID", kind: .id, help: "The entry's id, as `feeds entries` lists it.")]),
        CommandSpec(
            .read, ["read"], summary: "Mark entries read (or every entry of one feed).",
            positionals: [.init("ID", .oneOrMore, kind: .id, help: "Entry ids.")],
            options: [.init("feed", value: "URL", help: "Mark every entry of this feed read.")],
            alternative: "feed"),
        CommandSpec(
            .unread, ["unread"], summary: "Mark entries unread.",
            positionals: [.init("ID", .oneOrMore, kind: .id, help: "Entry ids.")]),
        CommandSpec(
            .star, ["star"], summary: "Star entries.",
            positionals: [.init("ID", .oneOrMore, kind: .id, help: "Entry ids.")]),
        CommandSpec(
            .unstar, ["unstar"], summary: "Unstar entries.",
            positionals: [.init("ID", .oneOrMore, kind: .id, help: "Entry ids.")]),
        CommandSpec(
            .delete, ["delete"], summary: "Delete entries; a refresh never brings them back.",
            positionals: [.init("ID", .oneOrMore, kind: .id, help: "Entry ids.")]),
        CommandSpec(
            .search, ["search"], summary: "Search titles, summaries and contents, best first.",
            positionals: [.init("TEXT", help: "Words to find (quote several).")],
            options: [json]),
        CommandSpec(
            .bookmarkAdd, ["bookmark", "add"], summary: "Bookmark a URL.",
            positionals: [.init("URL", help: "The page to keep.")],
            options: [
                .init("tag", value: "T", repeatable: true, help: "A tag (repeat for several)."),
                .init("note", value: "TEXT", help: "A note to keep with it."),
            ]),
        CommandSpec(
            .bookmarkRemove, ["bookmark", "remove"], summary: "Remove a bookmark.",
            positionals: [.init("URL", help: "The bookmarked URL.")]),
        CommandSpec(
            .bookmarkTag, ["bookmark", "tag"], summary: "Add tags to a bookmark (those it has stay).",
            positionals: [.init("URL", help: "The bookmarked URL.")],
            options: [.init("tag", value: "T", repeatable: true, help: "A tag (repeat for several).")]),
        CommandSpec(
            .bookmarks, ["bookmarks"], summary: "List bookmarks, newest first.",
            options: [.init("tag", value: "T", help: "Only bookmarks with this tag (any case)."), json]),
        CommandSpec(
            .bookmarksImport, ["bookmarks", "import"],
            summary: "Import bookmarks from a linkding-style API.",
            details: "Follows the API's pages (`{\"count\", \"next\", \"results\"}`) and stores them in one go.",
            positionals: [.init("URL", help: "The API's bookmarks endpoint.")],
            options: [.init("token", value: "T", help: "Sent as `Authorization: Token T`.")]),
        CommandSpec(
            .bookmarksPush, ["bookmarks", "push"],
            summary: "Send bookmark changes made here (added, removed, tagged) to the bookmarks API.",
            details: """
                `bookmark add`, `remove` and `tag` work offline; their changes wait until pushed (and \
                `bookmarks import` pushes them first). A change the API refuses keeps waiting, with \
                its message. Exits 1 when a change failed.
                """,
            positionals: [
                .init("URL", .optional, help: "The API's bookmarks endpoint (default: the last one imported from).")
            ],
            options: [.init("token", value: "T", help: "Sent as `Authorization: Token T`.")]),
        CommandSpec(
            .status, ["status"], summary: "Show the bookmark changes waiting to be pushed.",
            options: [json]),
        CommandSpec(
            .opmlImport, ["opml", "import"], summary: "Subscribe to the feeds of an OPML file, in its folders.",
            positionals: [.init("FILE", help: "The OPML file.")]),
        CommandSpec(
            .opmlExport, ["opml", "export"], summary: "Print every subscription as OPML 2.0, in its folders."),
        CommandSpec(
            .demo, ["demo"], summary: "Run feeds against example feeds served on 127.0.0.1 (no internet).",
            details: """
                Serves the project's example feeds and a sample bookmarks API on a loopback port, \
                subscribes, refreshes twice (the second all not-modified), imports bookmarks, \
                searches and prints what landed. Uses a temporary store unless --store is given.
                """),
        CommandSpec(
            .help, ["help"], summary: "Show help for a command.",
            positionals: [.init("COMMAND", .optional, help: "A command, e.g. `bookmark add`.")]),
    ]

    /// The command spelled by `words` exactly.
    public static func command(_ words: [String]) -> CommandSpec? {
        commands.first { $0.words == words }
    }

    public static func command(_ id: CommandID) -> CommandSpec {
        guard let spec = commands.first(where: { $0.id == id }) else {
            preconditionFailure("CommandTable has no \(id)")
        }
        return spec
    }

    /// The two-word commands that begin with `word` (`bookmark` → `add`, `remove`).
    static func subcommands(of word: String) -> [String] {
        commands.filter { $0.words.count == 2 && $0.words[0] == word }.map { $0.words[1] }
    }
}
