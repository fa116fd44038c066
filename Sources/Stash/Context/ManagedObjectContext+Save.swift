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
            // A save part way through a decode could not be undone by the decode's failure.
            if tracker.journal != nil { throw ChangeJournal.refusal(of: "save()", in: self) }
            guard let written = try writeChanges() else { return ChangeSet() }
            container.broadcast(written.note, from: self)
            notifyObservers(of: [written.note])
            let token = noteOwnCommit(written.tokens)
            written.didSave(token)
            return written.note.changeSet(identity.states.map(\.entity))
        }
    }

    /// Writes the pending changes (through `container.store.save`, or `batch` for a batch of
    /// `decodeAndSave`) and applies the result to the objects; `nil` when there was nothing
    /// to write. The caller tells the container and the observers once the transaction has
    /// committed, and calls `didSave` with the token its unique indexes are true for.
    func writeChanges(inBatch batch: BatchWrite? = nil) throws -> WrittenChanges? {
        try throwPendingLoadError()
        // Set again once this save commits: one that writes nothing leaves no counts.
        lastRowChangeCounts = nil
        guard !graph.listOwners.isEmpty || identity.states.contains(where: \.hasPendingWrites) else {
            return nil
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
                return nil
            }
            let newKeys = batch.map { _ in NewRowKeys(inserted: plan.inserted, states: identity.states) }
            var sparedLookUps = 0
            if let batch, let newKeys, batch.writes.excludesOtherWriters {
                let generation = container.saveGeneration
                for position in changes.entities.indices
                where newKeys.areNew(
                    at: position, in: identity.states[position], generation: generation, token: batch.token)
                {
                    changes.entities[position].matchesStoredRows = false
                    sparedLookUps += 1
                }
            }
            let result = try batch?.writes.write(changes) ?? container.store.save(changes)
            let generation = container.noteSave()
            let note = planner.note(for: result, plan)
            lastRowChangeCounts = container.noteRowsChanged(note)
            // Before `apply` forgets which attributes changed.
            let movedKeys = identity.states.indices.map { position in
                identity.states[position].entity.uniqueAttributes.map { unique in
                    plan.updated[position].contains { $0.changedAttributes.contains(unique.index) }
                }
            }
            tracker.apply(result, plan)
            graph.noteJoinWrites(plan.joinLists, revised: result.revisedJoins)
            let states = identity.states
            // The rows deleted, as the note says (without those the store kept).
            let deleted = note.entities.map(\.deleted)
            let inserted = states.indices.map { position in
                states[position].storedKeys.contains(where: \.holdsWholeColumn)
                    // `resolved`: an insert saved onto a row with an object here stands in for it.
                    ? plan.inserted[position].compactMap(\.resolved.rowID) : []
            }
            return WrittenChanges(
                note: note,
                tokens: result.tokens,
                sparedLookUps: sparedLookUps
            ) { token in
                for (position, state) in states.enumerated() {
                    for (index, keys) in state.storedKeys.enumerated() {
                        keys.didSave(
                            deleting: deleted[position], inserting: inserted[position],
                            keys: newKeys?.rows(at: position, unique: index),
                            movingKeys: movedKeys[position][index], generationBefore: generation.before,
                            after: generation.after, token: token)
                    }
                }
                self.lastSave = (generation.before, generation.after, token)
            }
        } catch {
            for step in undo.reversed() { step() }
            throw error
        }
    }

    /// Records the container's own commit, answering the store's change token after it.
    func noteOwnCommit(_ tokens: CommitTokens) -> Int64 {
        if let before = tokens.beforeCommit, tokens.afterCommit == nil, container.store.changeTokenSeesEveryCommit {
            // Another connection committed right after this save: the token after it holds
            // that commit too. The one before never comes back, so what this save vouches for
            // (objects leaving by value, pages found as recorded) is read again, and that
            // commit counts as another process's.
            return before
        }
        let token = tokens.afterCommit ?? (try? container.store.changeToken()) ?? 0
        container.externalCommits.withLock { $0.ownCommit(before: tokens.beforeCommit, after: token) }
        return token
    }
}

/// How a batch of `decodeAndSave` is written: into the open transaction
/// (`Store.inOneTransaction`), whose change token is `token` throughout.
struct BatchWrite {
    let writes: TransactionWrites
    let token: Int64
}

/// What `writeChanges` wrote: the save's note, its tokens, and what is left to do once the
/// token after the commit is known.
struct WrittenChanges {
    let note: SaveNote
    /// The store's change token just before and after the commit (a batch's are the
    /// transaction's, which `decodeAndSave` takes instead).
    let tokens: CommitTokens
    /// How many entities' inserts the store did not match against stored rows, the context
    /// having proven them new (`NewRowKeys`).
    let sparedLookUps: Int
    /// Tells the context's unique indexes what the save inserted and deleted, and keeps the
    /// save's generations and token (`lastSave`).
    let didSave: (Int64) -> Void
}

/// Where each new object of a save is among its inserts, filled once the change set is made,
/// and the row ids the store gives them as it writes.
final class NewRowReferences {
    /// Unchecked: one save fills and reads it, on its one thread; the runtime's check cost
    /// 90 instructions a new row that another points at (see docs/ARCHITECTURE.md).
    @exclusivity(unchecked) var positions: [ObjectIdentifier: (entity: Int, row: Int)] = [:]
    let rows: InsertedRows

    init(rows: InsertedRows) { self.rows = rows }
}
