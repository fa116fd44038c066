import Stash

/// The payload of the notification a save sends (`pg_notify`) in its transaction, so that it
/// reaches other containers' listening connections only if it commits.
///
/// ```text
/// stash1 9f3c2a71 1842
/// Post i101-140 u7,9 d3
/// Author u12
/// ```
///
/// The first line names the format, the container that saved (its store's `origin`: a
/// container drops its own saves, which it delivered itself) and the commit's number (the
/// count in `_stash_commits` after it, for messages and `psql`). Then one line per entity the
/// save changed: its name, and the row ids it inserted (`i`), updated (`u`) and deleted
/// (`d`), runs of consecutive ids as `first-last`, so an import of new rows takes a few bytes.
///
/// PostgreSQL refuses a payload of 8000 bytes or more. A save whose rows do not fit in
/// `limit` bytes sends the entities' names only (`stash1 9f3c2a71 1842 unlisted`, then a
/// name a line): listeners read their objects of those entities again and re-run the
/// observed fetches on them. Names that do not fit either (never, with fewer than some
/// hundreds of entities) send `… all`: every entity.
enum PostgresNotification {
    static let format = "stash1"
    /// Under PostgreSQL's 8000 bytes, with room to spare.
    static let limit = 7900

    /// The payload for a save of `rows` by `origin`, or `nil` when it changed no row.
    static func payload(origin: String, commit: Int64, rows: [(entity: String, rows: RowChanges)], limit: Int = limit)
        -> String?
    {
        let changed = rows.filter { !$0.rows.isEmpty }
        guard !changed.isEmpty else { return nil }
        let head = "\(format) \(origin) \(commit)"
        var text = head
        for (entity, rows) in changed {
            text += "\n" + entity
            for (letter, ids) in [("i", rows.inserted), ("u", rows.updated), ("d", rows.deleted)] where !ids.isEmpty {
                text += " " + letter + runs(ids)
            }
            if text.utf8.count >= limit { break }
        }
        if text.utf8.count < limit { return text }
        let names = head + " unlisted\n" + changed.map(\.entity).joined(separator: "\n")
        return names.utf8.count < limit ? names : head + " all"
    }

    /// `1-3,7,9-10`.
    static func runs(_ ids: [Int64]) -> String {
        let sorted = ids.sorted()
        var parts: [String] = []
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] <= sorted[end] + 1 { end += 1 }
            parts.append(sorted[index] == sorted[end] ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }

    /// What a payload says, or `nil` for one `origin` sent itself. A payload this format does
    /// not read (another program's notification on the channel, a later format) says that
    /// anything may have changed.
    static func notice(_ payload: String, ownOrigin origin: String) -> CommitNotice? {
        let lines = payload.split(separator: "\n", omittingEmptySubsequences: false)
        let head = lines.first?.split(separator: " ") ?? []
        guard head.count >= 3, head[0] == format else { return CommitNotice(unlisted: .all) }
        if head[1] == origin { return nil }
        let entities = lines.dropFirst()
        switch head.count > 3 ? head[3] : "" {
        case "":
            var rows: [String: RowChanges] = [:]
            for line in entities {
                let fields = line.split(separator: " ")
                guard let name = fields.first else { continue }
                var changes = RowChanges()
                for field in fields.dropFirst() {
                    guard let letter = field.first, let ids = ids(field.dropFirst()) else {
                        return CommitNotice(unlisted: .all)
                    }
                    switch letter {
                    case "i": changes.inserted = ids
                    case "u": changes.updated = ids
                    case "d": changes.deleted = ids
                    default: return CommitNotice(unlisted: .all)
                    }
                }
                rows[String(name)] = changes
            }
            return CommitNotice(rows: rows)
        case "unlisted":
            return CommitNotice(unlisted: .entities(Set(entities.map(String.init))))
        default:
            return CommitNotice(unlisted: .all)
        }
    }

    /// The ids of `1-3,7`, or `nil` if it is not such a list.
    private static func ids(_ text: Substring) -> [Int64]? {
        var ids: [Int64] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", maxSplits: 1)
            guard let first = bounds.first.flatMap({ Int64($0) }) else { return nil }
            let last = bounds.count == 2 ? Int64(bounds[1]) : first
            guard let last, last >= first, last - first < 10_000_000 else { return nil }
            ids.append(contentsOf: first...last)
        }
        return ids
    }
}
