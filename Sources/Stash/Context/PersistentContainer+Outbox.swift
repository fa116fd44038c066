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
    /// acknowledged ones and keeps ETags: each call a transaction of its own.
    package func updateOutbox(
        attempted: OutboxAttempt? = nil, failed: (Int64, String?)? = nil, acknowledged: [Int64] = [],
        etags: [OutboxETag] = []
    ) throws {
        guard let store = store as? any OutboxStore else { return }
        try store.updateOutbox(attempted: attempted, failed: failed, acknowledged: acknowledged, etags: etags)
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
