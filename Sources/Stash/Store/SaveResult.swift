/// What a store did with a change set, per entity in change set order: the row ids of the
/// inserts, and for inserts that turned out to name a stored row, that row's values.
struct SaveResult {
    var entities: [EntitySaveResult] = []
    /// The store's change token read inside the transaction, just before it committed
    /// (`nil` for a store in memory): see `ExternalCommits.ownCommit`.
    var tokenBeforeCommit: Int64?
    /// The positions in `StoreChangeSet.joinWrites` of the lists the store holds otherwise
    /// than written: another writer added or removed members since the context read them.
    var revisedJoins = Set<Int>()
}

struct EntitySaveResult {
    /// The row id of each insert, in order: a new row's, or the matched stored row's.
    var insertedRowIDs: [Int64] = []
    /// By insert position, `nil` for a new row; for an insert matched to a stored row, the
    /// stored values of the columns the insert was not given (all columns under
    /// `.keepStored`), `nil` elsewhere, or an empty array when there are none.
    var matches: [[StoredValue?]?] = []
    /// By update position: the columns left as stored under `ConflictRule.keepStored`, with
    /// their stored values.
    var keptStored: [Int: [Int: StoredValue]] = [:]
    /// Update positions that wrote nothing: every column they would write already held
    /// its value, or was left as stored.
    var unwrittenUpdates = Set<Int>()
    /// By row id: checked columns of updates (`RowWrites.checkedSets`) found already holding
    /// the value, so not written.
    var unchangedColumns: [Int64: AttributeSet] = [:]
    /// By update position: the whole stored row (every column, in entity order) as the
    /// transaction read it before writing, for updates with checked columns.
    var storedRows: [Int: [StoredValue]] = [:]
}
