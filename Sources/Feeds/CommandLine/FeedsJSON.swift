import Foundation

/// What `--json` prints for each command, with the keys issue 16 names, in its order.
public enum FeedsJSON {
    /// `feeds list --json`.
    public static func feeds(_ feeds: [FeedSummary]) -> JSONValue {
        .array(
            feeds.map {
                .object([
                    ("url", .string($0.url)), ("title", .string($0.title)), ("site", .text($0.site)),
                    ("entries", .number(Int64($0.entries))), ("unread", .number(Int64($0.unread))),
                    ("lastError", .text($0.lastError)),
                ])
            })
    }

    /// `feeds status --json`: `{"waiting", "refused": [{"url", "method", "message"}], "api"}`.
    public static func status(_ status: LibraryStatus) -> JSONValue {
        .object([
            ("waiting", .number(Int64(status.waiting))),
            (
                "refused",
                .array(
                    status.refused.map {
                        .object([
                            ("url", .text($0.url)), ("method", .string($0.method)), ("message", .string($0.message)),
                        ])
                    })
            ),
            ("api", .text(status.api)),
        ])
    }

    /// `feeds refresh --json`: `{"feeds": [{"url", "status", "new", "error"}]}`.
    public static func refresh(_ report: RefreshReport) -> JSONValue {
        .object([
            (
                "feeds",
                .array(
                    report.feeds.map {
                        .object([
                            ("url", .string($0.url)), ("status", .string($0.status.rawValue)),
                            ("new", .number(Int64($0.new))), ("error", .text($0.error)),
                        ])
                    })
            )
        ])
    }

    /// `feeds entries --json`.
    public static func entries(_ entries: [EntrySummary]) -> JSONValue {
        .array(
            entries.map {
                .object([
                    ("id", .number($0.id)), ("feed", .string($0.feed)), ("title", .string($0.title)),
                    ("link", .text($0.link)), ("author", .text($0.author)), ("published", .date($0.published)),
                    ("read", .bool($0.read)), ("starred", .bool($0.starred)),
                ])
            })
    }

    /// `feeds search --json`: best first; no hits is `[]`.
    public static func search(_ results: [SearchResult]) -> JSONValue {
        .array(
            results.map {
                .object([
                    ("id", .number($0.id)), ("feed", .string($0.feed)), ("title", .string($0.title)),
                    ("link", .text($0.link)), ("snippet", .string($0.snippet)),
                ])
            })
    }

    /// `feeds bookmarks --json`.
    public static func bookmarks(_ bookmarks: [BookmarkSummary]) -> JSONValue {
        .array(
            bookmarks.map {
                .object([
                    ("url", .string($0.url)), ("title", .string($0.title)), ("note", .string($0.note)),
                    ("tags", .array($0.tags.map { .string($0) })), ("created", .date($0.created)),
                ])
            })
    }
}
