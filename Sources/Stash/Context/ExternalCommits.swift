/// Commits to the store file that did not come from this container (another process, or
/// another container on the same file), as far as the container has looked: their number
/// rises each time the store's change token (`PRAGMA data_version`) moved for a reason
/// other than the container's own saves.
///
/// Objects remember the number they were loaded at (`ManagedObject.externalCommitsSeen`); a
/// fetch that meets one loaded before the latest such commit takes the row it read into it,
/// as a save in the same container would have (see `ManagedObjectContext.materialize`).
struct ExternalCommits {
    /// The change token the number is true for; `nil` for a store with none (in memory).
    private var token: Int64?
    private(set) var count: UInt64 = 0

    init(token: Int64?) { self.token = token }

    /// The number after looking at `token`, read just now.
    mutating func observe(_ token: Int64) -> UInt64 {
        if token != self.token {
            self.token = token
            count &+= 1
        }
        return count
    }

    /// This container committed: the token moved from `before` (read inside its
    /// transaction, under the write lock) to `after`. If nothing had moved it since the last
    /// look, the move is the container's own. An SQLite file's save calls this only when no
    /// other commit came between its own and the read of `after`
    /// (`SQLiteStore.tokenAfterOwnCommit`); when one did, it is not called, and the next look
    /// counts the move as another process's. PostgreSQL's `after` is `before + 1`, not read
    /// again (the count's row stays locked by the save's transaction until it commits), or
    /// `before` when the save wrote no row and rolled back.
    mutating func ownCommit(before: Int64?, after: Int64) {
        guard let before, before == token else { return }
        token = after
    }
}
