/// A point in a store's acknowledgements: a fetch takes one before it sends its first request.
package struct OutboxMark: Sendable, Hashable {
    let count: UInt64
}

/// The operations a push acknowledged while fetches were in flight, by the rows and columns
/// they sent: what a fetch's save keeps as stored.
///
/// A server answers a fetch with its state as of the request. An operation waiting when the
/// answer is saved keeps its columns (`SQLiteStore.PendingEdits`); one acknowledged after the
/// request was sent has left the outbox, and nothing else kept the answer's older values
/// from being written over the pushed ones (or its ETag over the push's answer's). A fetch's
/// save (`OutboxWrite.fetchedAt`) keeps the columns of the operations acknowledged since its
/// mark as it keeps the waiting ones', and does not delete their rows.
///
/// Kept in memory by the store, and only while a fetch watches (`OutboxWatch`): with none in
/// flight an acknowledgement notes nothing, and the entries go with the last watch that
/// could need them. A push from another process (or through another container of the same
/// file) is not seen, as it is not held back (`PushQueue`).
package final class OutboxAcknowledgements: Sendable {
    /// One acknowledged operation: its row, and the columns it sent (`nil`: a `POST`'s, all);
    /// for a `DELETE`, the key it named instead (its row is gone).
    struct Entry {
        let count: UInt64
        let entity: String
        let rowID: Int64
        let columns: [String]?
        var deletedKey: String? = nil
    }

    /// One operation to note: a `DELETE` with the key it named (`deletedKey`), or a `POST` or
    /// `PATCH` with the columns it sent.
    typealias Acknowledged = (entity: String, rowID: Int64, columns: [String]?, deletedKey: String?)

    private struct State {
        var count: UInt64 = 0
        /// The watches in flight, each with the count when it began.
        var watches: [Int: UInt64] = [:]
        var nextWatch = 0
        var entries: [Entry] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Whether a fetch is in flight: only then is an acknowledgement noted.
    var isWatched: Bool { state.withLock { !$0.watches.isEmpty } }

    /// Notes operations acknowledged, in the transaction that removes them from the outbox.
    func note(_ acknowledged: [Acknowledged]) {
        state.withLock { state in
            guard !state.watches.isEmpty else { return }
            for operation in acknowledged {
                state.count += 1
                state.entries.append(
                    Entry(
                        count: state.count, entity: operation.entity, rowID: operation.rowID,
                        columns: operation.columns,
                        deletedKey: operation.deletedKey))
            }
        }
    }

    /// The `POST`s and `PATCH`es acknowledged after `mark`.
    func entries(since mark: OutboxMark) -> [Entry] {
        state.withLock { state in state.entries.filter { $0.count > mark.count && $0.deletedKey == nil } }
    }

    /// The keys of the `DELETE`s acknowledged after `mark`, by entity: the server still held
    /// those objects when it answered a request sent at `mark`. As UTF-8 bytes, as the store
    /// tells unique values apart: "café" in two Unicode forms names two objects.
    package func deletedKeys(since mark: OutboxMark) -> [String: Set<[UInt8]>] {
        state.withLock { state in
            var keys: [String: Set<[UInt8]>] = [:]
            for entry in state.entries where entry.count > mark.count {
                if let key = entry.deletedKey { keys[entry.entity, default: []].insert(Array(key.utf8)) }
            }
            return keys
        }
    }

    /// Begins a watch: acknowledgements are noted until it is let go.
    package func watch() -> OutboxWatch {
        state.withLock { state in
            state.nextWatch += 1
            state.watches[state.nextWatch] = state.count
            return OutboxWatch(self, id: state.nextWatch)
        }
    }

    fileprivate func mark() -> OutboxMark {
        state.withLock { OutboxMark(count: $0.count) }
    }

    fileprivate func end(_ id: Int) {
        state.withLock { state in
            state.watches[id] = nil
            // What no watch left could ask for.
            guard let oldest = state.watches.values.min() else {
                state.entries = []
                return
            }
            state.entries.removeAll { $0.count <= oldest }
        }
    }
}

/// A fetch in flight, for as long as it is held: the store notes the operations a push
/// acknowledges meanwhile (`OutboxAcknowledgements`).
package final class OutboxWatch: Sendable {
    private let acknowledgements: OutboxAcknowledgements
    private let id: Int

    fileprivate init(_ acknowledgements: OutboxAcknowledgements, id: Int) {
        self.acknowledgements = acknowledgements
        self.id = id
    }

    deinit { acknowledgements.end(id) }

    /// Where the acknowledgements stand now: taken before a request is sent, what is
    /// acknowledged after it is what the answer may not hold.
    package func mark() -> OutboxMark { acknowledgements.mark() }
}
