/// The context's part that records what changes: each saved object's values before this
/// context changed them, kept an attribute at a time (what `rollback()` puts back), the
/// journal of an all-or-nothing decode, the values only `awakeFromInsert()` set, and what a
/// committed save leaves on the objects (row ids, values the store kept or read, no pending
/// changes).
final class ChangeTracker: ContextPart {
    // Unchecked, these fields that every decoded or edited object reads: the context is
    // used from one isolation at a time (see `Confinement`), and the runtime's check costs
    // about 85 instructions an access (see `ManagedObject.state` for the figure).
    /// Set while `decode(_:from:using:)` runs (or the recipe decodes an object with
    /// relationships), so a failure can undo what it did.
    @exclusivity(unchecked) var journal: ChangeJournal?
    /// The last journal closed, emptied, for the next to open: the recipe opens one
    /// for each object with relationships (about 900 instructions an essay of stash-bench's
    /// graph import under callgrind to make and free one).
    @exclusivity(unchecked) var spareJournal: ChangeJournal?
    /// Attributes that only `awakeFromInsert()` set, by new object (see `awaken`).
    @exclusivity(unchecked) var awokenDefaults: [ObjectIdentifier: AttributeSet] = [:]
    /// The objects whose `awakeFromInsert()` runs, innermost last, and what each hook
    /// overwrote (see `awaken`).
    @exclusivity(unchecked) var awakenings: [Awakening] = []

    /// Called before a saved object's first change of `slot` since its last save (keeps the
    /// value it was saved with, for `rollback()`; no slot: a value set again, `restate`), and
    /// before any change while a journal is active.
    func objectWillChange(_ object: ManagedObject, atSlot slot: Int? = nil) {
        withContext { context in
            context.entering {
                let state = context.identity.state(for: object.entity)
                journal?.recordChange(object, in: state)
                guard object.state == .persisted || object.state == .deleted else { return }
                guard let slot else { return keepSavedValues(of: object, in: state) }
                // One access to the table: the state made if the object had none, the slot kept.
                state.updated[
                    ObjectIdentifier(object),
                    default: SavedState(object: object, unloaded: object.unloaded)
                ].values.keepValue(atSlot: slot, of: object)
            }
        }
    }

    /// Records that a changed attribute of a partly loaded object is to be compared with its
    /// row before it counts as a change (see `FaultLoader.fill`).
    func markUnverified(_ object: ManagedObject, _ slot: Int) {
        withContext { context in
            let state = context.identity.state(for: object.entity)
            // One access to the table: the saved state made if the object had none.
            state.updated[ObjectIdentifier(object), default: SavedState(object: object, unloaded: object.unloaded)]
                .unverified.insert(slot)
        }
    }

    /// Starts `object`'s saved state (what `rollback()` puts back) unless it has one: none of
    /// its values kept yet, each kept as it is first changed (`SavedValues`).
    @inline(__always)
    private func keepSavedValues(of object: ManagedObject, in state: EntityState) {
        let id = ObjectIdentifier(object)
        if state.updated[id] == nil {
            state.updated[id] = SavedState(object: object, unloaded: object.unloaded)
        }
    }

    /// Drops every unsaved change (the context's `rollback()`): new objects leave the
    /// context, changed objects get their saved values back, deleted objects come back.
    func rollback() {
        withContext { context in
            context.graph.generation &+= 1
            awokenDefaults.removeAll()
            context.graph.forgetChangedLists()
            // After new objects left: they keep their lists, as objects in no context do.
            defer { context.graph.dropListsSetSinceSave() }
            for state in context.identity.states {
                // A stand-in made since the last save goes too: kept, it would go on writing to
                // the object it stood in for, and the next save would write that.
                for object in state.inserted {
                    if state.isLive(object) {
                        object.state = .transient
                        object.managedObjectContext = nil
                    } else if object.state == .standIn, object.managedObjectContext === context {
                        context.resolver.detach(standIn: object, in: state)
                    }
                }
                state.clearInserted()
                for saved in state.updated.values {
                    let object = saved.object
                    saved.values.restore(into: object)
                    // Unset, so that they are read from the row (see `SavedState.movedUnder`).
                    for slot in saved.movedUnder.positions(below: object.layout.count) {
                        object.setValue(nil as Any?, inSlot: slot)
                    }
                    object.changedAttributes.removeAll()
                    object.restatedAttributes.removeAll()
                    let unloaded = saved.unloaded.union(saved.movedUnder)
                    if !unloaded.isEmpty {
                        object.unloaded = object.unloaded.union(unloaded)
                        if let rowID = object.rowID { state.partial.append(rowID) }
                    }
                }
                for object in state.deleted.values {
                    object.state = .persisted
                }
                for object in Array(state.updated.values.map(\.object)) + Array(state.deleted.values) {
                    state.index(object, in: context)
                }
                state.updated.removeAll()
                state.deleted.removeAll()
                state.mayHoldDuplicates = false
            }
        }
    }

    /// Applies what the store did to the objects, once the transaction has committed, so a
    /// failed save leaves every object as it was.
    func apply(_ result: SaveResult, _ plan: SavePlan) {
        withContext { context in
            context.graph.forgetChangedLists()
            awokenDefaults.removeAll()
            for (position, state) in context.identity.states.enumerated() {
                let keptDeletes = result.entity(at: position).keptDeletes
                for object in plan.deleted[position] {
                    // The store kept the row (an edit waits for it): the object stays its row's.
                    if let rowID = object.rowID, keptDeletes.contains(rowID) {
                        object.state = .persisted
                        object.changedAttributes.removeAll()
                        object.restatedAttributes.removeAll()
                        state.index(object, in: context)
                        continue
                    }
                    if let rowID = object.rowID { state.byRowID[rowID] = nil }
                    object.state = .transient
                    object.managedObjectContext = nil
                    object.changedAttributes.removeAll()
                    object.restatedAttributes.removeAll()
                }
                let entityResult = result.entity(at: position)
                // Rows read or kept are few, or none (an edit's save): their tables are looked in
                // only when they hold something.
                let readRows = !entityResult.storedRows.isEmpty
                let keptRows = !entityResult.keptStored.isEmpty
                for (offset, object) in plan.updated[position].enumerated() {
                    object.changedAttributes.removeAll()
                    object.restatedAttributes.removeAll()
                    // The row as the transaction read it: what the object had not loaded.
                    if readRows, !object.unloaded.isEmpty, let stored = entityResult.storedRows[offset] {
                        for attribute in state.entity.attributes where object.unloaded.contains(attribute.index) {
                            if let value = try? attribute.codec.value(from: stored[attribute.index]) {
                                object.setPrimitiveValue(value, of: attribute)
                                object.unloaded.remove(attribute.index)
                            }
                        }
                    }
                    // Under .storedWins, what the store kept instead of this context's values.
                    guard keptRows, let kept = entityResult.keptStored[offset] else { continue }
                    for (column, stored) in kept {
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
                    // The row already has an object here: the unique value the store matched
                    // moved onto this new object's after it was inserted (another context's save
                    // merged in, an edit here, a save not merged). It stands in for that object,
                    // as a new object inserted after the move would, so the context keeps one
                    // object per row (a second one wrote its stale values back over the row).
                    if let reported = match, let holder = state.byRowID[rowID], holder !== object,
                        holder.state == .persisted
                    {
                        context.resolver.standIn(object, savedOnto: holder, reported: reported, in: state)
                        continue
                    }
                    object.rowID = rowID
                    object.state = .persisted
                    object.changedAttributes.removeAll()
                    state.register(object, rowID: rowID)
                    if match != nil { state.index(object, in: context) }
                }
            }
            for state in context.identity.states {
                state.clearInserted()
                state.updated.removeAll()
                state.deleted.removeAll()
            }
            context.graph.dropListsSetSinceSave()
        }
    }
}
