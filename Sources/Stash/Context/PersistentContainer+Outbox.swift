import Foundation

/// The outbox of `RemoteModel` edits, as StashREST's `push` and an app's status line see it.
extension PersistentContainer {
    /// How many changes wait to be pushed (each object's edits since the last push count
    /// once). Zero when the store keeps no outbox.
    public func pendingChangeCount() throws -> Int {
        try outboxOperations().count
    }

    /// Every operation waiting, in the order a push sends them.
    package func outboxOperations() throws -> [OutboxOperation] {
        guard let store = store as? any OutboxStore else { return [] }
        return try store.outboxOperations()
    }

    /// Notes that an operation is being sent, or that the server refused it, or removes
    /// acknowledged ones and keeps ETags: each call a transaction of its own. Answers `false`
    /// when `attempted` was not recorded, an edit having merged into the operation since it
    /// was read (`OutboxAttempt.merged`). With `fetchedAt`, the ETags are a fetch's, not kept
    /// for rows whose operations wait or were acknowledged since (`OutboxWrite.fetchedAt`).
    @discardableResult
    package func updateOutbox(
        attempted: OutboxAttempt? = nil, failed: (Int64, String?)? = nil, acknowledged: [Int64] = [],
        etags: [OutboxETag] = [], keys: [OutboxKey] = [], fetchedAt: OutboxMark? = nil
    ) throws -> Bool {
        guard let store = store as? any OutboxStore else { return true }
        let (recorded, tokens) = try store.updateOutbox(
            attempted: attempted, failed: failed, acknowledged: acknowledged, etags: etags, keys: keys,
            fetchedAt: fetchedAt)
        // The container's own commit, as a save's is: not counted as another process's (which
        // would make an import running meanwhile drop its validators, and fetches read back
        // every object they meet).
        if let after = tokens.afterCommit {
            externalCommits.withLock { $0.ownCommit(before: tokens.beforeCommit, after: after) }
        }
        noteOutboxWrite()
        return recorded
    }

    /// A watch for a fetch about to send its requests: the operations a push acknowledges
    /// while it is held are noted, so that the fetch's save does not write its older answer
    /// over them (`OutboxAcknowledgements`). `nil` when the store keeps no outbox or the model
    /// has no `RemoteModel`.
    package func watchOutbox() -> OutboxWatch? {
        guard let store = store as? any OutboxStore, entities.contains(where: { $0.type is any RemoteModel.Type })
        else { return nil }
        return store.acknowledgements.watch()
    }

    /// The ETag last seen for each of these rows, if any.
    package func rowETags(_ objectIDs: [ObjectID]) throws -> [ObjectID: String] {
        let keys = objectIDs.compactMap { id in id.rowID.map { "\(id.entityName)/\($0)" } }
        let values = try bookkeepingValues(in: BookkeepingTable("row_etags"), forKeys: keys)
        var etags: [ObjectID: String] = [:]
        for id in objectIDs {
            if let rowID = id.rowID, let value = values["\(id.entityName)/\(rowID)"] { etags[id] = value }
        }
        return etags
    }
}

extension PersistentContainer {
    /// What waits in the outbox now.
    public func outboxState() throws -> OutboxState {
        let operations = try outboxOperations()
        return OutboxState(waiting: operations.count, refused: operations.filter { $0.failure != nil }.count)
    }

    /// The outbox's state now, then again whenever a save or a push changes it (the same
    /// state is not repeated), for as long as the sequence is iterated.
    ///
    /// ```swift
    /// for await state in container.outboxStates() {
    ///     statusLine.text = state.description   // "3 changes waiting"
    /// }
    /// ```
    public func outboxStates() -> AsyncStream<OutboxState> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxState.self, bufferingPolicy: .bufferingNewest(8))
        let last = Locked<OutboxState?>(nil)
        let yieldChanged: @Sendable () -> Void = { [weak self] in
            guard let self, let state = try? self.outboxState() else { return }
            // Under the lock, so that two reports of one change yield it once, in order.
            last.withLock { last in
                guard last != state else { return }
                last = state
                continuation.yield(state)
            }
        }
        let key = outboxListeners.withLock { listeners in
            listeners.next += 1
            listeners.continuations[listeners.next] = yieldChanged
            return listeners.next
        }
        yieldChanged()
        let saves = changes
        let task = Task {
            for await _ in saves { yieldChanged() }
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            _ = self?.outboxListeners.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// Tells `outboxStates()` of an outbox write that is no save.
    func noteOutboxWrite() {
        let listeners = outboxListeners.withLock { Array($0.continuations.values) }
        for listener in listeners { listener() }
    }
}
