/// What a store's change notification says of a commit by another container (another
/// process, on this host or another): the rows it changed, by entity name, and the entities
/// it changed in ways not listed (a save too large for one notification), or that every
/// entity may have changed (notifications were missed while the listening connection was
/// down). A container turns it into a `SaveNote` for its contexts and a `ChangeSet` for
/// `changes`.
package struct CommitNotice: Sendable, Equatable {
    package var rows: [String: RowChanges] = [:]
    package var unlisted: Unlisted = .none

    /// What changed beyond the rows listed.
    package enum Unlisted: Sendable, Equatable {
        case none
        /// These entities changed in rows not listed.
        case entities(Set<String>)
        /// Any entity may have changed: saves may have been missed.
        case all
    }

    package init(rows: [String: RowChanges] = [:], unlisted: Unlisted = .none) {
        self.rows = rows
        self.unlisted = unlisted
    }
}

/// A store's running change notifications (see `Store.startChangeNotifications`): a
/// connection of their own that hears of other processes' commits until stopped.
package protocol ChangeNotifications: AnyObject, Sendable {
    /// `true` once commits by others are heard (the connection is made and listens), and
    /// while it stays so; `false` while it is made again after a loss.
    var isListening: Bool { get }

    /// Stops listening and closes the connection; nothing is delivered after it returns.
    func stop()
}

extension Store {
    /// No notifications: SQLite's other processes are noticed by `changeToken()` (`PRAGMA
    /// data_version`) when a context next fetches.
    package func startChangeNotifications(_ receive: @escaping @Sendable (CommitNotice) -> Void)
        -> (any ChangeNotifications)?
    {
        nil
    }
}
