/// Where a container's objects are kept: the seam between the object graph and a backend.
///
/// A context hands a store one `StoreChangeSet` per save and asks it `StoreQuery`s; values cross
/// as `StoredValue`s. `SQLiteStore` and StashPostgres's `PostgresStore` implement it;
/// nothing above this folder speaks SQL.
package protocol Store: AnyObject, Sendable {
    /// Applies every change in one transaction: all of it is written, or none of it. On
    /// failure the error names the entity (and attribute, where one is to blame).
    func save(_ changes: StoreChangeSet) throws -> SaveResult

    /// Runs `body` inside one transaction that commits once `body` returns, or rolls back if
    /// it throws: an import saved a batch at a time, still all or nothing. `body` writes each
    /// batch with what it is given (valid only while `body` runs); meanwhile the calling
    /// thread's reads see what the batches wrote, its own saves fail, and Stash's saves on
    /// other threads wait.
    func inOneTransaction<Result>(_ body: (TransactionWrites) throws -> Result) throws -> (Result, CommitTokens)

    /// Calls `body` with each row `query` selects, in row id order.
    func fetch(_ query: StoreQuery, _ body: (any StoreRow) throws -> Void) throws

    /// `fetch`, with a look at the change token for the rows of its first statement
    /// (`ExternalCommits`): `look` is called once, before the first row, with the token, or
    /// with `nil` when the store knows that those rows show no commit an earlier look did not
    /// count (or it keeps no token: a private store in memory). It returns `true` when what it
    /// learnt is newer than the rows may be: the store then reads them again, as of now. A
    /// fetch of several statements (row ids in batches) reads the later ones as of when each
    /// begins, as before: a commit between two of them is counted at the next look. The look is
    /// not taken when the first step fails. The default reads the token before the query.
    func fetch(
        _ query: StoreQuery, lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws

    /// `fetch(_:lookingAtToken:_:)` of every column of the rows whose column at `column` holds
    /// `value` as stored: a look-up by a unique value (`fetch(_:unique:_:)`), with no query to
    /// build, render and destroy. The default asks that query.
    func fetch(
        _ entity: EntitySchema, whereColumn column: Int, equals value: StoredValue,
        lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws

    /// Calls `body` with each row that matches `query`'s terms and rows, best match first,
    /// with its score and snippet. An entity without `.searchable` attributes throws.
    func search(_ query: SearchQuery, _ body: (any StoreRow, SearchRow) throws -> Void) throws

    /// How many rows `query` selects, without reading them.
    func count(_ query: StoreQuery) throws -> Int

    /// A value that changes when another process (or another container on the same file)
    /// commits to the store, so caches of stored facts know to start over.
    func changeToken() throws -> Int64

    /// Whether others (processes, containers) can commit to the store, so that its change
    /// token is worth watching: `false` for a private store in memory.
    var isShared: Bool { get }

    /// Whether the change token moves for every commit to the store, by anyone: then a
    /// container whose token and save count stand still knows that nothing was written
    /// (`StoreStamp`). `false` where some writer goes unseen (PostgreSQL's count is kept by
    /// Stash's commits only, not `psql`'s) or where the container's own commits do not move
    /// it (an SQLite store in memory).
    var changeTokenSeesEveryCommit: Bool { get }

    /// Writes a consistent copy of the whole store, as one file, to `path`.
    func backup(to path: String) throws

    /// Starts hearing of commits that other containers (other processes, other hosts) make
    /// to the store, calling `receive` for each, off Swift's cooperative threads, in commit
    /// order; a container's own commits are not delivered to it. `nil` for a store that
    /// cannot tell (SQLite: its token is looked at when a context fetches instead).
    func startChangeNotifications(_ receive: @escaping @Sendable (CommitNotice) -> Void)
        -> (any ChangeNotifications)?
}

/// How `Store.inOneTransaction`'s body writes its batches.
package struct TransactionWrites {
    /// Writes one change set inside the transaction, as `save` would write it alone.
    package let write: (StoreChangeSet) throws -> SaveResult
    /// Whether no one else can commit to the store until the transaction ends (SQLite's
    /// write lock), so that what the transaction read stays true to its end. Not on
    /// PostgreSQL, where only Stash's saves wait and other writers go on.
    package let excludesOtherWriters: Bool

    package init(write: @escaping (StoreChangeSet) throws -> SaveResult, excludesOtherWriters: Bool) {
        self.write = write
        self.excludesOtherWriters = excludesOtherWriters
    }
}

/// The change token just before a transaction committed and just after, as a save's
/// `SaveResult` carries them (see `ExternalCommits.ownCommit`).
package struct CommitTokens: Sendable {
    package var beforeCommit: Int64?
    package var afterCommit: Int64?

    package init(beforeCommit: Int64? = nil, afterCommit: Int64? = nil) {
        self.beforeCommit = beforeCommit
        self.afterCommit = afterCommit
    }
}

extension Store {
    package func fetch(
        _ query: StoreQuery, lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws {
        // Read before the query, so the rows are at least as new as the token.
        _ = try look(isShared ? try changeToken() : nil)
        try fetch(query, body)
    }

    package func fetch(
        _ entity: EntitySchema, whereColumn column: Int, equals value: StoredValue,
        lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws {
        try fetch(StoreQuery(entity, predicate: .columnEquals(column, value)), lookingAtToken: look, body)
    }
}
