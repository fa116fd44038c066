/// What one save does to the outbox, in its transaction (see `SQLiteStore+Outbox`): the
/// operations a context that records edits adds (merged with the ones still waiting for
/// the same rows), the operations a push had acknowledged, and the rows' ETags.
package struct OutboxWrite {
    /// An operation this save records, its row known once the store has written it.
    struct Record {
        enum Row {
            case known(Int64)
            /// An insert of the change set: entity position and insert offset. An insert that
            /// matched a stored row by its unique value records a `PATCH` of what it set.
            case inserted(entity: Int, offset: Int)
            /// An update of the change set: entity position, update offset and its row. The
            /// columns the store found already holding the value written
            /// (`EntitySaveResult.unchangedColumns`) or left as stored (`keptStored`) are not sent.
            case updated(entity: Int, offset: Int, rowID: Int64)
        }
        let entity: String
        let row: Row
        let key: String
        let method: OutboxOperation.Method
        /// For a `PATCH` (and an insert that may turn into one), the attributes changed.
        var attributes: [String]
        /// For an insert or an update, the column of each of `attributes`: those a match to a
        /// stored row kept as stored (`.storedWins`) or found already holding the value written
        /// (`.incomingWins`, `EntitySaveResult.unchangedMatchColumns`), and those of an update
        /// the store did not change (see `Row.updated`), are not sent.
        var columns: [Int] = []
        /// For a `DELETE`, the unique value as stored: what finds a copy a fetch brought back.
        var storedKey: StoredValue = .null

        /// Leaves out of `attributes` those whose column `unchanged` names: what the save did
        /// not change in the row. A record without `columns` keeps them all.
        mutating func leaveOut(_ unchanged: (Int) -> Bool) {
            guard columns.count == attributes.count else { return }
            attributes = zip(attributes, columns).filter { !unchanged($0.1) }.map(\.0)
        }
    }

    var records: [Record] = []
    /// Entities whose rows this save writes without recording (a fetch, a push's answer):
    /// the columns of their rows that operations still wait to send are kept as stored.
    var protectedEntities: [EntitySchema] = []
    /// Operations the server acknowledged, removed in the transaction that writes its answer.
    var acknowledged: [Int64] = []
    /// The ETag last seen per row (`nil` forgets it), by entity name and row id.
    var etags: [OutboxETag] = []
    /// Server-set keys learnt from `POST` answers, given to the objects' waiting operations.
    var keys: [OutboxKey] = []
    /// A fetch's save, with the mark taken before its first request was sent: the columns of
    /// operations acknowledged since (`OutboxAcknowledgements`) are kept as stored too, and
    /// their rows are not deleted, since the answer is older than what the push wrote. Its
    /// `etags` are not kept for rows whose operations wait (they keep the ETag they were made
    /// against) or were acknowledged since (the push's answer's is newer).
    var fetchedAt: OutboxMark?
    /// A fetch's save: the keys of its new objects, by entity name (the remote key, or the
    /// first unique value, as UTF-8 text; empty while unknown). One that a `DELETE`
    /// acknowledged since `fetchedAt` named makes the store refuse the save
    /// (`ObjectsDeletedSinceFetch`).
    var fetchedInsertKeys: [String: [[UInt8]]] = [:]

    package var isEmpty: Bool { records.isEmpty && acknowledged.isEmpty && etags.isEmpty && keys.isEmpty }
}

/// The ETag a server last gave for one row, sent as `If-Match` with the row's next write.
package struct OutboxETag: Sendable, Hashable {
    package let entityName: String
    package let rowID: Int64
    package let value: String?

    package init(entityName: String, rowID: Int64, value: String?) {
        self.entityName = entityName
        self.rowID = rowID
        self.value = value
    }
}

/// Thrown by a fetch's save whose new objects include one that a `DELETE` acknowledged after
/// the fetch's request named (seen inside the save's transaction): nothing is written, and
/// the fetch leaves such objects out (`dropObjectsDeleted(since:)`) and saves again.
package struct ObjectsDeletedSinceFetch: Error {}
