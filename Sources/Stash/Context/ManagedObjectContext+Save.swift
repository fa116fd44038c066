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
                    try resolveCompositeKeys(in: state, undo: &undo)
                    try mergeDuplicateInserts(in: state, undo: &undo)
                    try validateRequiredValues(in: state)
                    try callValidation(in: state)
                    try checkDeniedDeletes(in: state)
                }
                try throwPendingLoadError()
                var (changes, plan) = try makeStoreChanges()
                changes.outbox = try outboxWrite(plan, insertOrder: changes.insertOrder)
                guard !changes.isEmpty else {
                    apply(SaveResult(), plan)
                    return ChangeSet()
                }
                let result = try container.store.save(changes)
                let generation = container.noteSave()
                let note = makeNote(result, plan)
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

    /// The objects behind a change set, per entity in its order, to apply the store's
    /// answer to once the transaction has committed.
    struct SavePlan {
        var deleted: [[ManagedObject]] = []
        var updated: [[ManagedObject]] = []
        var inserted: [[ManagedObject]] = []
        /// The owner and list of each of the change set's `joinWrites`.
        var joinLists: [(ManagedObject, Int)] = []
    }

    // MARK: Before the transaction

    /// Merges new objects whose unique value another live object of the context holds
    /// into that object (which the unique index names: the first one seen).
    private func mergeDuplicateInserts(in state: EntityState, undo: inout [() -> Void]) throws {
        guard state.mayHoldDuplicates else { return }
        undo.append { state.mayHoldDuplicates = true }
        for object in state.inserted where state.isLive(object) {
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index) else { continue }
                guard let holder = state.lookup(index, key, in: self) else {
                    state.setEntry(object, index, key)
                    continue
                }
                guard holder !== object else { continue }
                try merge(
                    object, into: holder, state: state, attribute: state.entity.uniqueAttributes[index], key: key,
                    undo: &undo)
                break
            }
        }
        state.mayHoldDuplicates = false
    }

    private func merge(
        _ object: ManagedObject, into holder: ManagedObject, state: EntityState, attribute: AttributeDescription,
        key: StoredValue, undo: inout [() -> Void]
    ) throws {
        let holderValues = holder.values
        let holderChanges = holder.changedAttributes
        let holderRestated = holder.restatedAttributes
        let holderWasUpdated = state.updated[ObjectIdentifier(holder)] != nil
        undo.append { [self] in
            holder.values = holderValues
            holder.changedAttributes = holderChanges
            holder.restatedAttributes = holderRestated
            if !holderWasUpdated { state.updated[ObjectIdentifier(holder)] = nil }
            object.state = .inserted
            object.managedObjectContext = self
        }
        switch mergePolicy.kind {
        case .fail:
            throw uniqueConflict(state.entity, attribute, key)
        case .incomingWins:
            for candidate in state.entity.attributes where object.changedAttributes.contains(candidate.index) {
                if let value = object.value(of: candidate) {
                    holder.setValue(value, of: candidate)
                }
            }
        case .storedWins:
            break
        }
        object.state = .transient
        object.managedObjectContext = nil
    }

    func uniqueConflict(
        _ entity: EntityDescription, _ attribute: AttributeDescription, _ key: StoredValue,
        _ reason: String = "is already taken and the merge policy is .fail"
    ) -> StashError {
        StashError(.uniqueConflict, "the value \(key) \(reason)", entity: entity.name, attribute: attribute.name)
    }

    private func validateRequiredValues(in state: EntityState) throws {
        let required = state.entity.attributes.filter { !$0.hasDefault }
        guard !required.isEmpty else { return }
        var slots = AttributeSet()
        for attribute in required { slots.insert(attribute.index) }
        for object in state.inserted where state.isLive(object) {
            // A new object's changed attribute holds a value (only a saved object's values are
            // ever cleared), so only one not given them all is read value by value: copying
            // each value out to compare it with nil cost 1.8k instructions an object (46M of a
            // 20,000-object import write, stash-bench under callgrind).
            if slots.subtracting(object.changedAttributes).isEmpty { continue }
            for attribute in required where object.value(of: attribute) == nil {
                throw StashError(
                    .missingValue, "is required but was never set on a new object",
                    entity: state.entity.name, attribute: attribute.name)
            }
        }
    }

    /// Every pending change as stored values, per entity, and the objects behind them.
    private func makeStoreChanges() throws -> (StoreChangeSet, SavePlan) {
        var changes = StoreChangeSet()
        var plan = SavePlan()
        // Where each new object is among the inserts, for the relationships that point at it.
        let references = NewRowReferences(rows: changes.insertedRows)
        let rule: StoredMatchRule =
            switch mergePolicy.kind {
            case .incomingWins: .update
            case .storedWins: .keepStored
            case .fail: .fail
            }
        let lists = listPlaces()
        for state in identity.states {
            let entity = state.entity
            var entityChanges = EntityChanges(entity: entity.schema)
            entityChanges.onStoredMatch = rule
            // In row order, so that a save does the same thing every time.
            let deleted = state.deleted.values.filter { $0.rowID != nil }.sorted { $0.rowID! < $1.rowID! }
            entityChanges.deletes = deleted.map { $0.rowID! }
            // Sorted by keys taken out first: comparing objects retains each of them, and a
            // registered object's retains take the runtime's slow path (its weak reference).
            let updated = state.updated.values.compactMap { saved -> (Int64, ManagedObject)? in
                let object = saved.object
                guard object.state == .persisted, let rowID = object.rowID,
                    !object.changedAttributes.isEmpty || !object.restatedAttributes.isEmpty
                else { return nil }
                return (rowID, object)
            }
            .sorted { $0.0 < $1.0 }.map(\.1)
            entityChanges.updates.reserveCapacity(updated.count)
            let positionSlots = Self.slotsWithListPositions(of: entity)
            for object in updated {
                // Compared with the row inside the transaction: values set to what the
                // context last saw, or decoded for a row never loaded.
                let unverified =
                    state.updated[ObjectIdentifier(object)]?.unverified.intersection(object.changedAttributes)
                    ?? AttributeSet()
                var columns = object.changedAttributes.union(object.restatedAttributes)
                var checked = unverified.union(object.restatedAttributes)
                if mergePolicy.writesWholeObjects {
                    // `.overwrite`: the rest of what the object has loaded, where the row differs.
                    let rest = AttributeSet.all(entity.attributes.count).subtracting(object.unloaded)
                        .subtracting(columns)
                    columns = columns.union(rest)
                    checked = checked.union(rest)
                }
                if !object.changedAttributes.subtracting(unverified).isEmpty {
                    // The row is written anyway, and SQLite rewrites a whole row for any
                    // UPDATE: what only may differ is written with it, unread. A relationship
                    // that keeps a list position is still compared, so that an object that
                    // did not move keeps its place.
                    checked = checked.intersection(positionSlots)
                }
                if !checked.isEmpty, !object.unloaded.isEmpty { entityChanges.updates.readsWholeRows = true }
                entityChanges.updates.append(rowID: object.rowID!, columns: columns, checked: checked)
            }
            entityChanges.updates.value = { row, column in
                try Self.storedValue(of: entity.attributes[column], in: updated[row], references)
            }
            if mergePolicy.kind != .incomingWins {
                entityChanges.onConflict = mergePolicy.kind == .fail ? .fail : .keepStored
                let seen = updated.map { state.updated[ObjectIdentifier($0)]?.values }
                entityChanges.updates.expected = { row, column in
                    // What the object last saw: its values at its first change, kept in step
                    // with other contexts' saves by merging.
                    guard let values = seen[row], let value = values[column] else { return nil }
                    return try? entity.attributes[column].codec.storedValue(for: value)
                }
            }
            let inserted = state.liveInserted
            entityChanges.inserts.reserveCapacity(inserted.count)
            for object in inserted {
                entityChanges.inserts.append(columns: object.changedAttributes)
            }
            entityChanges.inserts.value = { row, column in
                try Self.storedValue(of: entity.attributes[column], in: inserted[row], references)
            }
            if let columns = lists.columns[entity.name] {
                entityChanges.inserts.position = { row, column in
                    Self.insertPosition(of: inserted[row], column: column, columns, lists)
                }
            }
            changes.entities.append(entityChanges)
            plan.deleted.append(deleted)
            plan.updated.append(updated)
            plan.inserted.append(inserted)
        }
        for (position, inserted) in plan.inserted.enumerated() {
            for (row, object) in inserted.enumerated() {
                references.positions[ObjectIdentifier(object)] = (position, row)
            }
        }
        changes.insertOrder = insertOrder(plan)
        (changes.joinWrites, plan.joinLists) = joinWrites(references)
        changes.positionWrites = positionWrites(lists, references, updated: plan.updated)
        return (changes, plan)
    }

    /// The entities in the order their inserts are written: each after the entities its
    /// to-one relationships point at, so that their new rows' ids are known (a cycle is
    /// broken anywhere: the store writes such a value once every insert is done).
    private func insertOrder(_ plan: SavePlan) -> [Int] {
        var order: [Int] = []
        var visiting = Set<Int>()
        var done = Set<Int>()
        let positions = Dictionary(
            uniqueKeysWithValues: identity.states.enumerated().map { (ObjectIdentifier($1.entity.type), $0) })
        func visit(_ position: Int) {
            guard !done.contains(position), visiting.insert(position).inserted else { return }
            for relationship in identity.states[position].entity.relationships where !relationship.isToMany {
                if let target = positions[ObjectIdentifier(relationship.targetType)], target != position {
                    visit(target)
                }
            }
            done.insert(position)
            order.append(position)
        }
        for position in identity.states.indices { visit(position) }
        return order
    }

    /// The slots of the to-one relationships whose lists keep their order in a position column.
    private static func slotsWithListPositions(of entity: EntityDescription) -> AttributeSet {
        var slots = AttributeSet()
        for relationship in entity.relationships where !relationship.isToMany {
            if let slot = relationship.slot, (try? relationship.positionColumn()) != nil { slots.insert(slot) }
        }
        return slots
    }

    /// An attribute's value as stored (NULL if never set), naming the attribute on failure.
    /// A relationship to a new object is its row id once the store has written it.
    private static func storedValue(
        of attribute: AttributeDescription, in object: ManagedObject, _ references: NewRowReferences
    ) throws -> StoredValue {
        guard let value = object.value(of: attribute) else { return .null }
        if attribute.isRelationship, case .object(let target) = RelationshipTarget(slotValue: value),
            target.resolved.rowID == nil || target.resolved.state == .inserted
        {
            let target = target.resolved
            guard let (entity, row) = references.positions[ObjectIdentifier(target)] else {
                throw StashError(
                    .missingValue,
                    "relates to a new \(target.entity.name) that is not in the context any more (deleted, or moved): "
                        + "set the relationship again or to nil",
                    entity: object.entity.name, attribute: attribute.name)
            }
            guard let rowID = references.rows.rowID(entity: entity, row: row) else { throw UnwrittenRow() }
            return .integer(rowID)
        }
        do {
            return try attribute.codec.storedValue(for: value)
        } catch var error as StashError {
            // The store names the entity; the attribute is known only here.
            error.attribute = error.attribute ?? attribute.name
            throw error
        }
    }

    // MARK: After the commit

    /// What the save changed, by row id, for the other contexts.
    private func makeNote(_ result: SaveResult, _ plan: SavePlan) -> SaveNote {
        var note = SaveNote(entities: [])
        for position in identity.states.indices {
            var entity = SaveNote.Entity()
            entity.deleted = plan.deleted[position].compactMap(\.rowID)
            let unwritten = position < result.entities.count ? result.entities[position].unwrittenUpdates : []
            entity.updated = plan.updated[position].enumerated().compactMap { offset, object in
                unwritten.contains(offset) ? nil : object.rowID
            }
            // An object whose many-to-many list changed: its relationships changed.
            for owner in listOwners.values
            where owner.state == .persisted && owner.entity === identity.states[position].entity {
                if let rowID = owner.rowID, !entity.updated.contains(rowID) { entity.updated.append(rowID) }
            }
            if position < result.entities.count {
                let inserted = result.entities[position]
                for (offset, rowID) in inserted.insertedRowIDs.enumerated() {
                    if inserted.matches[offset] == nil {
                        entity.inserted.append(rowID)
                    } else {
                        entity.updated.append(rowID)
                    }
                }
            }
            note.entities.append(entity)
        }
        return note
    }

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
