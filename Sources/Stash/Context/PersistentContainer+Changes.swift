import CStashRuntime

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
        contextList.withLock { contexts in contexts.append(ContextAddress(context)) }
        listenToOtherProcesses()
    }

    /// Takes a context out of those that hear of other contexts' saves: called by its
    /// `deinit`, so that no address of a freed context stays in the list.
    func unregister(_ context: ManagedObjectContext) {
        let address = Unmanaged.passUnretained(context).toOpaque()
        contextList.withLock { contexts in contexts.removeAll { $0.address == address } }
    }

    /// Hands a committed save to every other context of the container and to the listeners
    /// of `changes`; `origin` is `nil` for another process's save.
    func broadcast(_ note: SaveNote, from origin: ManagedObjectContext?) {
        let others = contextList.withLock { contexts in
            contexts.compactMap { $0.retainedContext() }.filter { $0 !== origin }
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

/// A context the container does not keep alive: its address, which the context takes out of
/// the container's list as it is deinitialized (`unregister`).
///
/// Not a `weak` reference: that gives the context a side table, and every retain and release
/// of it afterwards takes the runtime's slow path. Each object a context holds retains it, so
/// each fetched or decoded object paid about 110 instructions more to hold and let go of its
/// context (stash-bench's graph fetch under callgrind). Unchecked Sendable: the address is
/// only read under the list's lock, which the context's deinit takes to remove it.
struct ContextAddress: @unchecked Sendable {
    let address: UnsafeMutableRawPointer

    init(_ context: ManagedObjectContext) {
        address = Unmanaged.passUnretained(context).toOpaque()
    }

    /// The context, retained, unless its deinitialization has begun (`swift_tryRetain`
    /// refuses it then). Only under the list's lock: after it, the address may be freed.
    func retainedContext() -> ManagedObjectContext? {
        guard swift_tryRetain(address) != nil else { return nil }
        return Unmanaged<ManagedObjectContext>.fromOpaque(address).takeRetainedValue()
    }
}

/// The continuations of `changes`, by a key of their own.
struct ChangeListeners: Sendable {
    var next = 0
    var continuations: [Int: AsyncStream<ChangeSet>.Continuation] = [:]
}
