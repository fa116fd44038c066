/// A fetch's look at the store's change token (`Store.fetch(_:lookingAtToken:_:)`), taken
/// once its first statement's read has begun, so that the rows are never older than what the
/// look learnt, and taken without reading the token when the reading connection saw no
/// commit since its last look.
///
/// The token is `PRAGMA data_version` on a connection of its own: a statement and a read
/// transaction, 3.6k of a look-up's 49.6k instructions (stash-bench, callgrind). The
/// reading connection's data version (`SQLiteConnection.dataVersion`) costs no statement
/// and moves with every commit its reads find: while it stands where it stood at the
/// connection's last look, every commit the read sees was counted then.
///
/// The look itself is passed to each step, not kept: keeping a closure the caller passed
/// takes `withoutActuallyEscaping`, which allocated a context per fetch (300 instructions).
struct TokenLook {
    /// Whether the look is still to be taken.
    private var isPending: Bool

    /// A look to take at the first step, or (`taking: false`) none.
    init(taking: Bool) {
        isPending = taking
    }

    /// `statement.step()`; on the fetch's first step, with `look` taken once the read began.
    /// Inlined: the call per row showed as 40 instructions a row of a fetch of every row.
    @inline(__always)
    mutating func step(
        _ statement: SQLiteStatement, on connection: SQLiteConnection, of store: SQLiteStore,
        _ look: (Int64?) throws -> Bool
    ) throws -> Bool {
        if !isPending { return try statement.step() }
        return try firstStep(statement, on: connection, of: store, look)
    }

    private mutating func firstStep(
        _ statement: SQLiteStatement, on connection: SQLiteConnection, of store: SQLiteStore,
        _ look: (Int64?) throws -> Bool
    ) throws -> Bool {
        isPending = false
        let hasRow = try statement.step()
        guard store.isShared else {
            _ = try look(nil)
            return hasRow
        }
        let version = connection.dataVersion
        if let version, version == connection.dataVersionLookedAt {
            _ = try look(nil)
            return hasRow
        }
        let readAgain = try look(try store.changeToken())
        // The version of a read that began before the token was read: every commit it saw
        // moved the token, and is counted.
        connection.dataVersionLookedAt = version
        guard readAgain else { return hasRow }
        statement.rewind()
        return try statement.step()
    }

    /// The look of a fetch that ran no statement.
    mutating func finish(_ store: SQLiteStore, _ look: (Int64?) throws -> Bool) throws {
        guard isPending else { return }
        isPending = false
        _ = try look(store.isShared ? try store.changeToken() : nil)
    }
}
