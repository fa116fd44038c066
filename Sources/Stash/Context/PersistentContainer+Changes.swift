extension PersistentContainer {
    /// Every save of any context of the container, as the IDs of the objects it inserted,
    /// updated and deleted, in the order the saves committed. Each call makes a new sequence
    /// that starts with the next save.
    ///
    /// On PostgreSQL, the saves of other containers on the database (other processes, other
    /// hosts) come too, a moment after they commit, as their store's notification lists
    /// them; a change set whose `unlistedEntities` is not empty says that saves changed those
    /// entities in rows it cannot list (one too large for a notification, or any saves made
    /// while the connection that hears of them was lost). On SQLite only this container's
    /// saves come.
    ///
    /// ```swift
    /// for await change in container.changes {
    ///     print(change.inserted.count, "new")
    /// }
    /// ```
    public var changes: AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeSet.self, bufferingPolicy: .unbounded)
        let key = changeListeners.withLock { listeners in
            listeners.next += 1
            listeners.continuations[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.changeListeners.withLock { $0.continuations.removeValue(forKey: key) }
        }
        listenToOtherProcesses()
        return stream
    }

    /// Adds a context to those that hear of other contexts' saves.
    func register(_ context: ManagedObjectContext) {
        contextList.withLock { contexts in
            contexts.removeAll { $0.context == nil }
            contexts.append(WeakContext(context: context))
        }
        listenToOtherProcesses()
    }

    /// Hands a committed save to every other context of the container and to the listeners
    /// of `changes`; `origin` is `nil` for another process's save.
    func broadcast(_ note: SaveNote, from origin: ManagedObjectContext?) {
        let others = contextList.withLock { contexts in
            contexts.compactMap { $0.context }.filter { $0 !== origin }
        }
        for context in others {
            context.receive(note)
        }
        let listeners = changeListeners.withLock { Array($0.continuations.values) }
        guard !listeners.isEmpty else { return }
        let change = note.changeSet(entities)
        for listener in listeners {
            listener.yield(change)
        }
    }
}

/// A context the container does not keep alive.
struct WeakContext: Sendable {
    weak var context: ManagedObjectContext?
}

/// The continuations of `changes`, by a key of their own.
struct ChangeListeners: Sendable {
    var next = 0
    var continuations: [Int: AsyncStream<ChangeSet>.Continuation] = [:]
}
