extension PersistentContainer {
    /// The store's running notifications, if it has any (PostgreSQL's listening connection);
    /// `nil` before the first context or listener of `changes`, and for SQLite.
    package var changeNotifications: (any ChangeNotifications)? {
        notifications.withLock { $0.listening }
    }

    /// Starts the store's notifications of other processes' commits, once: a container with
    /// contexts or listeners of `changes` holds them (one connection, on PostgreSQL) until
    /// it is released.
    func listenToOtherProcesses() {
        guard store.isShared else { return }
        notifications.withLock { state in
            guard case .notStarted = state else { return }
            state = .started(
                store.startChangeNotifications { [weak self] notice in self?.receiveFromOtherProcess(notice) })
        }
    }

    /// Another container's commit, as its store's notification says: merged into every
    /// context as another context's save would be, and yielded to `changes`. Entities this
    /// container does not have are left out; a commit that touched none of its entities is
    /// not delivered.
    func receiveFromOtherProcess(_ notice: CommitNotice) {
        var note = SaveNote(entities: Array(repeating: RowChanges(), count: entities.count))
        for (position, entity) in entities.enumerated() {
            if let rows = notice.rows[entity.name] { note.entities[position] = rows }
            switch notice.unlisted {
            case .none: break
            case .all: note.unlisted.insert(position)
            case .entities(let names): if names.contains(entity.name) { note.unlisted.insert(position) }
            }
        }
        guard !note.isEmpty else { return }
        broadcast(note, from: nil)
    }
}

/// Whether a container listens to its store's notifications (`listenToOtherProcesses`).
enum NotificationState: Sendable {
    case notStarted
    /// Asked for; `nil` when the store has none.
    case started((any ChangeNotifications)?)

    var listening: (any ChangeNotifications)? {
        if case .started(let listening) = self { return listening }
        return nil
    }
}
