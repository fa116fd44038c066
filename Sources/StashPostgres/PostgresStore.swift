import Foundation
import Stash

/// The PostgreSQL store: a container's tables in a database, reached through a pool of
/// libpq connections (`PostgresPool`).
///
/// Reads run on any connection at `READ COMMITTED` and never wait for a save. Saves are
/// serialized across every process by one row (`_stash_commits`), which each save updates
/// first and which counts the commits: the change token. So a save compares stored values
/// and matches unique values as SQLite's one writer does, with nothing committed in
/// between, and another process's commit moves the token.
final class PostgresStore: Store {
    let pool: PostgresPool
    let entities: [String: EntitySchema]
    let conninfo: String
    /// Names this store (so its container) in the notifications its saves send, so that its
    /// own listening connection drops them (see `PostgresNotification`).
    let origin = String(UInt32.random(in: .min ... .max), radix: 16)
    /// The channel of the Stash store in this database and schema: `stash:public`.
    let channel: String

    /// Connects, then makes or migrates the tables for a model at `schemaVersion` (see
    /// `PostgresSchema`).
    init(
        conninfo: String, entities: [EntitySchema], connections: Int, lockTimeout: Duration? = .seconds(5),
        schemaVersion: Int = 0
    ) throws {
        pool = try PostgresPool(conninfo: conninfo, size: connections, lockTimeout: lockTimeout)
        self.conninfo = conninfo
        self.entities = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        channel = try pool.withConnection { connection in
            try PostgresSchema.create(entities, schemaVersion: Int64(schemaVersion), on: connection)
            return try "stash:" + connection.execute("SELECT current_schema()").text(0, 0)
        }
    }

    var isShared: Bool { true }

    /// `_stash_commits` counts Stash's commits: a row changed through `psql` leaves it as it was.
    var changeTokenSeesEveryCommit: Bool { false }

    // MARK: Reading

    /// ```sql
    /// SELECT "_pk", "id", "title" FROM "Post" WHERE ("read" <> $1) ORDER BY "publishedAt" DESC NULLS LAST, "_pk" DESC
    /// ```
    ///
    /// The whole result is read before `body` sees a row, and the connection goes back to
    /// the pool first: `body` may fetch again (a fault) on a pool of one.
    func fetch(_ query: StoreQuery, _ body: (any StoreRow) throws -> Void) throws {
        let columns = query.selectedColumns
        let select =
            "SELECT "
            + (["_pk"] + columns.map { query.entity.columns[$0].name }).map(quoted).joined(separator: ", ")
            + " FROM \(quoted(query.entity.name))"
        var renderer = QueryRenderer(query.entity, startingWith: select, dialect: .postgres)
        renderer.writeWhere(query)
        renderer.writeOrderBy(query.sort, listPosition: query.listPosition)
        renderer.writeLimit(query)
        if let refusal = renderer.refusal { throw refusal }
        let result = try inPlace(query.entity.name) {
            try pool.withConnection { try $0.execute(renderer.text, renderer.parameters, binary: true) }
        }
        let row = PostgresRow(result, types: columns.map { query.entity.columns[$0].type })
        for index in 0..<result.rowCount {
            row.row = index
            try body(row)
        }
    }

    /// `SELECT count(*) FROM "Post" WHERE …`; with a limit or an offset, of the page.
    func count(_ query: StoreQuery) throws -> Int {
        let table = quoted(query.entity.name)
        let limited = query.limit != nil || query.offset != nil
        var renderer = QueryRenderer(
            query.entity,
            startingWith: limited ? "SELECT count(*) FROM (SELECT 1 FROM \(table)" : "SELECT count(*) FROM \(table)",
            dialect: .postgres)
        renderer.writeWhere(query)
        if limited { renderer.writeLimit(query) }
        if let refusal = renderer.refusal { throw refusal }
        let sql = renderer.text + (limited ? ") AS \"page\"" : "")
        let result = try inPlace(query.entity.name) {
            try pool.withConnection { try $0.execute(sql, renderer.parameters) }
        }
        return Int(result.integer(0, 0))
    }

    func search(_ query: SearchQuery, _ body: (any StoreRow, SearchRow) throws -> Void) throws {
        throw StashError(
            .unsupportedQuery, "full-text search (.searchable) is not available on a PostgreSQL store yet",
            entity: query.rows.entity.name)
    }

    /// The number of commits Stash made to the database, by any process (`_stash_commits`):
    /// committed ones only, so not through the connection of an open `inOneTransaction`,
    /// which has counted its own commit already.
    func changeToken() throws -> Int64 {
        try pool.withConnection(unpinned: true) {
            try $0.execute("SELECT \"count\" FROM \"_stash_commits\"").integer(0, 0)
        }
    }

    /// Refuses a write of its own (a save, the bookkeeping) on the thread inside
    /// `inOneTransaction` (`StashError.insideBatchedImport`): its COMMIT would also end the
    /// import's transaction.
    func refuseInsideTransaction(_ what: String, entity: String? = nil) throws {
        guard pool.isPinnedToThisThread else { return }
        throw StashError.insideBatchedImport(what, entity: entity)
    }

    /// A connection of its own, `LISTEN`ing on `channel` (see `PostgresListener`).
    func startChangeNotifications(_ receive: @escaping @Sendable (CommitNotice) -> Void)
        -> (any ChangeNotifications)?
    {
        PostgresListener(conninfo: conninfo, channel: channel, origin: origin, receive: receive)
    }

    func backup(to path: String) throws {
        throw StashError(
            .storeFailed,
            "backup(to:) copies an SQLite file; a PostgreSQL database is copied with pg_dump (asked to write \(path))")
    }
}
