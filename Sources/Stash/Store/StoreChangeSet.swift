/// Everything one `save()` writes, per entity, as backend-neutral values: the store applies
/// it in one transaction and answers with a `SaveResult`.
package struct StoreChangeSet {
    package var entities: [EntityChanges] = []
    /// The entities' positions in the order their inserts are written: an entity after the
    /// ones its new rows point at, so their row ids are known when its values are asked for.
    package var insertOrder: [Int] = []
    /// The row id of each insert as the store writes it, for the values of later rows that
    /// point at it (a relationship's column).
    package var insertedRows = InsertedRows()
    /// Many-to-many lists' changes, written once every row is written.
    package var joinWrites: [JoinWrite] = []
    /// One-to-many lists' order, written once every row is written.
    package var positionWrites: [PositionWrite] = []
    /// `RemoteModel` edits to record, and a push's acknowledgements (`nil`: none involved).
    package var outbox: OutboxWrite?

    package var isEmpty: Bool {
        joinWrites.isEmpty && positionWrites.isEmpty && entities.allSatisfy(\.isEmpty) && outbox?.isEmpty != false
    }
}

/// The places of the rows of one ordered one-to-many list, in a list position column of
/// their table (`EntitySchema.positionColumns`): each row's index, or NULL for a row that
/// left a list. A store writes only the rows whose place changed.
package struct PositionWrite {
    package let table: EntitySchema
    package let column: String
    /// The row ids and their places, asked for once every insert is done.
    package let places: () throws -> [(rowID: Int64, position: Int64?)]
    /// The entity position and column of the relationship whose change moved these rows:
    /// a row whose update found that column already holding its value
    /// (`EntitySaveResult.unchangedColumns`) did not move, and keeps its place.
    package var unlessUnchanged: (entity: Int, column: Int)? = nil
}

/// The row ids a store gives a save's inserts, as it goes: by entity position and insert.
package final class InsertedRows {
    // Unchecked, both: a save's writer fills them on its one thread, and the runtime's
    // check cost 170 instructions an insert (see docs/ARCHITECTURE.md).
    @exclusivity(unchecked) private var rowIDs: [[Int64?]] = []
    /// Inserts that updated a stored row their unique values matched, rather than insert.
    @exclusivity(unchecked) private var matched = Set<Int64>()

    package func record(entity: Int, row: Int, rowID: Int64) {
        while rowIDs.count <= entity { rowIDs.append([]) }
        while rowIDs[entity].count <= row { rowIDs[entity].append(nil) }
        rowIDs[entity][row] = rowID
    }

    package func recordMatch(rowID: Int64) {
        matched.insert(rowID)
    }

    /// Whether the insert given `rowID` updated a stored row (its list places were not
    /// written with it).
    package func wasMatched(_ rowID: Int64) -> Bool {
        matched.contains(rowID)
    }

    package func rowID(entity: Int, row: Int) -> Int64? {
        entity < rowIDs.count && row < rowIDs[entity].count ? rowIDs[entity][row] : nil
    }
}

/// One object's side of a many-to-many relationship as it now is, written as a change to the
/// rows the context read (`known`), so that links another writer added or removed since
/// stay as that writer left them. The row ids are asked for once every insert is done, so
/// new objects have theirs.
///
/// A store reads the owner's join rows inside the save's transaction and then: deletes the
/// links of `known` that `related` left out (all stored links it left out when `known` is
/// `nil`: a replacement); inserts the members of `related` that are not stored, except the
/// ones in `known` (another writer removed those since); and numbers the list (`position`):
/// `related`'s members in their order, then the links other writers added, in stored order.
package struct JoinWrite {
    /// The join table: owner column, related column, position.
    package let table: EntitySchema
    package let owner: () throws -> Int64
    /// The list, in order.
    package let related: () throws -> [Int64]
    /// The related row ids the list had when read from the store, or `nil` when the list
    /// replaces whatever is stored.
    package let known: Set<Int64>?
    /// Whether the owner is an insert of this save: unless it matched a stored row, it has
    /// no join rows to read.
    package let ownerIsNew: Bool
}

/// Thrown by a value that names a row the store has not written yet (a new row of an
/// entity written later, or later in the same entity): the store writes NULL, and writes
/// the value again once every insert is done.
package struct UnwrittenRow: Error {}

/// One entity's part of a change set: rows to delete, rows to update (only the columns that
/// changed) and new rows. A store applies deletes first, then updates, then inserts, each
/// across all entities in change set order.
package struct EntityChanges {
    package let entity: EntitySchema
    /// Rows to delete, by row id.
    package var deletes: [Int64] = []
    /// Rows to update.
    package var updates = RowWrites()
    /// New rows, every column. Before inserting, a store looks for stored rows that
    /// already hold an insert's unique values; see `onStoredMatch`.
    package var inserts = RowWrites()
    /// What an insert whose unique value a stored row holds does instead.
    package var onStoredMatch = StoredMatchRule.update
    /// Under `.update`, whether a match also reads the columns the insert was given, to
    /// report those the row already held (`EntitySaveResult.unchangedMatchColumns`): set by
    /// a store for the inserts its outbox records, which send only what changed.
    package var comparesMatchedRows = false
    /// Whether updates compare every column they write with the row, not only the checked
    /// ones (`RowWrites.checkedSets`): one that already holds the value is not written and is
    /// reported (`EntitySaveResult.unchangedColumns`). Set by a store for the updates its
    /// outbox records, which send only what changed.
    package var comparesUpdatedRows = false
    /// `false` when the context has proven, inside the transaction, that no stored row holds
    /// any insert's unique values (`NewRowKeys`): the store then does not look.
    package var matchesStoredRows = true
    /// What an update does when a column it writes no longer holds the value its object last
    /// saw there (`updates.expected`): another context or process changed it since.
    package var onConflict = ConflictRule.overwrite

    package init(entity: EntitySchema) { self.entity = entity }

    package var isEmpty: Bool { deletes.isEmpty && updates.isEmpty && inserts.isEmpty }
}

/// What an insert does when a stored row already holds one of its unique values.
package enum StoredMatchRule {
    /// Update that row with the columns the insert was given (not the matched unique one)
    /// and report the stored values of the others (`MergePolicy.incomingWins`).
    case update
    /// Leave the row as it is and report all its stored values (`.storedWins`).
    case keepStored
    /// Fail the whole save with a `uniqueConflict` error (`.fail`).
    case fail
}

/// What an update does with a column whose stored value changed since its object saw it.
package enum ConflictRule {
    /// Write it all the same (`MergePolicy.incomingWins`: this context's change wins, and
    /// the other side's changes to other columns stay, since only changed columns are written).
    case overwrite
    /// Leave that column as stored and report its value (`.storedWins`).
    case keepStored
    /// Fail the whole save with a `conflict` error naming the row and columns (`.fail`).
    case fail
}

/// Rows to write: per row an id (updates) and the columns it sets; the values come from
/// `value`, asked for each column as the store binds it.
///
/// The values are produced on demand rather than gathered first: an import of 100k rows would
/// otherwise build a million stored values only to bind them and throw them away (about 0.1 s
/// of a 0.5 s save in `stash-bench`). They are stored values all the same, so any store can
/// take them; a value that cannot be made (a `UInt64` too large to store) throws, and the
/// store's transaction rolls back.
package struct RowWrites {
    /// Updates: the row each write targets. Inserts: unused.
    package private(set) var rowIDs: [Int64] = []
    /// Updates: the columns written. Inserts: the columns the object was given a value for
    /// (every column is written; these are what a match updates).
    package private(set) var columnSets: [AttributeSet] = []
    /// The value row `row` writes to the column at `column`.
    package var value: (_ row: Int, _ column: Int) throws -> StoredValue = { _, _ in .null }
    /// Updates: per row, the columns among `columnSets` that are written only if the row,
    /// read inside the save's transaction, holds another value: values the caller set to
    /// what the context last saw, or decoded for a row never loaded. Empty when none.
    package private(set) var checkedSets: [AttributeSet] = []
    /// Updates: whether the rows with checked columns are read whole, for objects that have
    /// not loaded all of theirs (`EntitySaveResult.storedRows`).
    package var readsWholeRows = false
    /// Updates read whole: the columns row `row`'s object has not loaded, which are all it
    /// takes from the row read (`nil`: every column).
    package var unloaded: ((_ row: Int) -> AttributeSet)?
    /// Updates: the value the row's object last saw in the column, `nil` when not known; what
    /// `onConflict` compares the stored value with.
    package var expected: ((_ row: Int, _ column: Int) -> StoredValue?)?
    /// Inserts: the row's place in the list a position column keeps (named as in
    /// `EntitySchema.positionColumns`); NULL when it is in no list written by this save.
    package var position: ((_ row: Int, _ column: String) throws -> StoredValue)?

    package var count: Int { columnSets.count }
    package var isEmpty: Bool { columnSets.isEmpty }

    package mutating func reserveCapacity(_ rows: Int) {
        rowIDs.reserveCapacity(rows)
        columnSets.reserveCapacity(rows)
    }

    /// Adds a row writing `columns`; its values come from `value`. `checked` (updates) are
    /// the columns written only if the stored value differs (see `checkedSets`).
    package mutating func append(rowID: Int64 = 0, columns: AttributeSet, checked: AttributeSet = AttributeSet()) {
        rowIDs.append(rowID)
        columnSets.append(columns)
        if !checked.isEmpty {
            if checkedSets.isEmpty { checkedSets = Array(repeating: AttributeSet(), count: columnSets.count - 1) }
            checkedSets.append(checked)
        } else if !checkedSets.isEmpty {
            checkedSets.append(checked)
        }
    }

    /// The checked columns of update `row` (see `checkedSets`).
    package func checked(_ row: Int) -> AttributeSet {
        checkedSets.isEmpty ? AttributeSet() : checkedSets[row]
    }
}
