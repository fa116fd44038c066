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
            guard !listOwners.isEmpty || identity.states.contains(where: \.hasPendingWrites) else { return ChangeSet() }
            // Merging duplicates changes objects before anything is written: if the save
            // fails, `undo` puts them back, so the context is left as it was.
            var undo: [() -> Void] = []
            do {
                callWillSave()
                try reconcileLists()
                for state in identity.states {
                    try resolver.resolveCompositeKeys(in: state, undo: &undo)
                    try resolver.mergeDuplicateInserts(in: state, undo: &undo)
                    try planner.checkRequiredValues(in: state)
                    try callValidation(in: state)
                    try checkDeniedDeletes(in: state)
                }
                try throwPendingLoadError()
                var (changes, plan) = try planner.storeChanges()
                changes.outbox = try outboxWrite(plan, insertOrder: changes.insertOrder)
                guard !changes.isEmpty else {
                    apply(SaveResult(), plan)
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
                apply(result, plan)
                noteJoinWrites(plan.joinLists, revised: result.revisedJoins)
                container.broadcast(note, from: self)
                notifyObservers(of: [note])
                let token = (try? container.store.changeToken()) ?? 0
                container.externalCommits.withLock { $0.ownCommit(before: result.tokenBeforeCommit, after: token) }
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

    /// Applies what the store did to the objects, once the transaction has committed, so a
    /// failed save leaves every object as it was.
    private func apply(_ result: SaveResult, _ plan: SavePlan) {
        forgetChangedLists()
        awokenDefaults.removeAll()
        for (position, state) in identity.states.enumerated() {
            for object in plan.deleted[position] {
                if let rowID = object.rowID { state.byRowID[rowID] = nil }
                object.state = .transient
                object.managedObjectContext = nil
                object.changedAttributes.removeAll()
                object.restatedAttributes.removeAll()
            }
            let entityResult = position < result.entities.count ? result.entities[position] : EntitySaveResult()
            for (offset, object) in plan.updated[position].enumerated() {
                object.changedAttributes.removeAll()
                object.restatedAttributes.removeAll()
                // The row as the transaction read it: what the object had not loaded.
                if !object.unloaded.isEmpty, let stored = entityResult.storedRows[offset] {
                    for attribute in state.entity.attributes where object.unloaded.contains(attribute.index) {
                        if let value = try? attribute.codec.value(from: stored[attribute.index]) {
                            object.setPrimitiveValue(value, of: attribute)
                            object.unloaded.remove(attribute.index)
                        }
                    }
                }
                // Under .storedWins, what the store kept instead of this context's values.
                for (column, stored) in entityResult.keptStored[offset] ?? [:] {
                    let attribute = state.entity.attributes[column]
                    if let value = try? attribute.codec.value(from: stored) {
                        object.setPrimitiveValue(value, of: attribute)
                    }
                }
            }
            let inserted = plan.inserted[position]
            guard !inserted.isEmpty else { continue }
            state.byRowID.reserveCapacity(state.byRowID.count + inserted.count)
            for (offset, object) in inserted.enumerated() {
                let rowID = entityResult.insertedRowIDs[offset]
                let match = entityResult.matches[offset]
                if let stored = match, !stored.isEmpty {
                    for attribute in state.entity.attributes {
                        guard let value = stored[attribute.index] else { continue }
                        // The store read these values from a row written by a codec.
                        if let decoded = try? attribute.codec.value(from: value) {
                            object.setPrimitiveValue(decoded, of: attribute)
                        }
                    }
                }
                object.rowID = rowID
                object.state = .persisted
                object.changedAttributes.removeAll()
                state.register(object, rowID: rowID)
                if match != nil { state.index(object, in: self) }
            }
        }
        for state in identity.states {
            state.clearInserted()
            state.updated.removeAll()
            state.deleted.removeAll()
        }
        dropListsSetSinceSave()
    }
}

/// Where each new object of a save is among its inserts, filled once the change set is made,
/// and the row ids the store gives them as it writes.
final class NewRowReferences {
    var positions: [ObjectIdentifier: (entity: Int, row: Int)] = [:]
    let rows: InsertedRows

    init(rows: InsertedRows) { self.rows = rows }
}
