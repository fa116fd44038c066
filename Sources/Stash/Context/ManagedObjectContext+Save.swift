extension ManagedObjectContext {
    /// Writes every insert, update and delete in one transaction.
    ///
    /// Before writing, objects that share a unique value are merged into one (see
    /// `MergePolicy`). The store matches new objects against stored rows by their unique
    /// values: a match updates that row instead of inserting another. If anything fails (a
    /// required attribute never set, a constraint, the disk), nothing is written, the error
    /// says what and where, and the context keeps its changes.
    public func save() throws {
        _ = try saveChanges()
    }

    /// `save()`, answering what it wrote: the objects it inserted, updated (including new
    /// objects that turned out to name a stored row) and deleted. Empty when there was
    /// nothing to write, or when every change matched what the store already held.
    @discardableResult
    public func saveChanges() throws -> ChangeSet {
        try entering {
            try throwPendingLoadError()
            guard !graph.listOwners.isEmpty || identity.states.contains(where: \.hasPendingWrites) else {
                return ChangeSet()
            }
            // Merging duplicates changes objects before anything is written: if the save
            // fails, `undo` puts them back, so the context is left as it was.
            var undo: [() -> Void] = []
            do {
                tracker.callWillSave()
                try graph.reconcileLists()
                for state in identity.states {
                    try resolver.resolveCompositeKeys(in: state, undo: &undo)
                    try resolver.mergeDuplicateInserts(in: state, undo: &undo)
                    try planner.checkRequiredValues(in: state)
                    try tracker.callValidation(in: state)
                    try graph.checkDeniedDeletes(in: state)
                }
                try throwPendingLoadError()
                var (changes, plan) = try planner.storeChanges()
                changes.outbox = try outboxWrite(plan, insertOrder: changes.insertOrder)
                guard !changes.isEmpty else {
                    tracker.apply(SaveResult(), plan)
                    return ChangeSet()
                }
                let result = try container.store.save(changes)
                let generation = container.noteSave()
                let note = planner.note(for: result, plan)
                // Before `apply` forgets which attributes changed.
                let movedKeys = identity.states.indices.map { position in
                    identity.states[position].entity.uniqueAttributes.map { unique in
                        plan.updated[position].contains { $0.changedAttributes.contains(unique.index) }
                    }
                }
                tracker.apply(result, plan)
                graph.noteJoinWrites(plan.joinLists, revised: result.revisedJoins)
                container.broadcast(note, from: self)
                notifyObservers(of: [note])
                let token: Int64
                if let before = result.tokenBeforeCommit, result.tokenAfterCommit == nil,
                    container.store.changeTokenSeesEveryCommit
                {
                    // Another connection committed right after this save: the token after it
                    // holds that commit too. The one before never comes back, so what this
                    // save vouches for (objects leaving by value, pages found as recorded) is
                    // read again, and that commit counts as another process's.
                    token = before
                } else {
                    token = result.tokenAfterCommit ?? (try? container.store.changeToken()) ?? 0
                    container.externalCommits.withLock { $0.ownCommit(before: result.tokenBeforeCommit, after: token) }
                }
                lastSave = (generation.before, generation.after, token)
                for (position, state) in identity.states.enumerated() {
                    let deleted = plan.deleted[position].compactMap(\.rowID)
                    let inserted =
                        state.storedKeys.contains(where: \.holdsWholeColumn)
                        ? plan.inserted[position].compactMap(\.rowID) : []
                    for (index, keys) in state.storedKeys.enumerated() {
                        keys.didSave(
                            deleting: deleted, inserting: inserted, movingKeys: movedKeys[position][index],
                            generationBefore: generation.before, after: generation.after, token: token)
                    }
                }
                return note.changeSet(identity.states.map(\.entity))
            } catch {
                for step in undo.reversed() { step() }
                throw error
            }
        }
    }

    // MARK: Before the transaction

    // MARK: After the commit

}

/// Where each new object of a save is among its inserts, filled once the change set is made,
/// and the row ids the store gives them as it writes.
final class NewRowReferences {
    var positions: [ObjectIdentifier: (entity: Int, row: Int)] = [:]
    let rows: InsertedRows

    init(rows: InsertedRows) { self.rows = rows }
}
