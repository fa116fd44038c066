/// What a store did with a change set, per entity in change set order: the row ids of the
/// inserts, and for inserts that turned out to name a stored row, that row's values.
package struct SaveResult {
    package var entities: [EntitySaveResult] = []
    /// The store's change token read inside the transaction, just before it committed
    /// (`nil` for a store in memory: see `ExternalCommits.ownCommit`), and right after the
    /// commit, known while no other commit can have come between (see
    /// `SQLiteStore.committing`; PostgreSQL's count is one more than before, its row locked
    /// until the commit, or as before when the save wrote nothing and rolled back), `nil`
    /// when another commit did, or for a store that cannot tell.
    package var tokens = CommitTokens()
    /// The positions in `StoreChangeSet.joinWrites` of the lists the store holds otherwise
    /// than written: another writer added or removed members since the context read them.
    package var revisedJoins = Set<Int>()

    package init() {}

    /// The result for the change set's `position`th entity: empty where the store had nothing
    /// to say (an entity the change set did not reach).
    func entity(at position: Int) -> EntitySaveResult {
        position < entities.count ? entities[position] : EntitySaveResult()
    }
}

package struct EntitySaveResult {
    /// The row id of each insert, in order: a new row's, or the matched stored row's.
    package var insertedRowIDs: [Int64] = []
    /// By insert position, `nil` for a new row; for an insert matched to a stored row, the
    /// stored values of the columns the insert was not given (all columns under
    /// `.keepStored`), `nil` elsewhere, or an empty array when there are none.
    package var matches: [[StoredValue?]?] = []
    /// By insert position, for inserts matched under `.update` with
    /// `EntityChanges.comparesMatchedRows`: the columns it was given that the row already
    /// held with the same value (not the matched unique one). None when absent.
    package var unchangedMatchColumns: [Int: AttributeSet] = [:]
    /// By update position: the columns left as stored under `ConflictRule.keepStored`, with
    /// their stored values.
    package var keptStored: [Int: [Int: StoredValue]] = [:]
    /// Update positions that wrote nothing: every column they would write already held
    /// its value, or was left as stored.
    package var unwrittenUpdates = Set<Int>()
    /// By row id: checked columns of updates (`RowWrites.checkedSets`) found already holding
    /// the value, so not written.
    package var unchangedColumns: [Int64: AttributeSet] = [:]
    /// By update position: the whole stored row (every column, in entity order) as the
    /// transaction read it before writing, for updates with checked columns.
    package var storedRows: [Int: [StoredValue]] = [:]
    /// Rows the change set deleted that the store kept: a save that records no edits keeps
    /// rows whose `POST` or `PATCH` waits (`SQLiteStore.write`). Their objects stay.
    package var keptDeletes = Set<Int64>()

    package init() {}
}
