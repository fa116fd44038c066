import Synchronization

/// The context's part that takes in what other contexts (and, on PostgreSQL, other processes)
/// saved: it keeps their notes until the context's next entry point, then gives the objects
/// the context holds the stored values, keeping their unsaved changes as the merge policy says.
///
/// `keep` may be called from any thread (the container's save, PostgreSQL's listener);
/// everything else runs in the context's isolation.
final class Merger: ContextPart {
    /// Saves of other contexts not merged yet (see `mergeInbox`).
    let inbox = Locked<[SaveNote]>([])
    /// Set when `inbox` has notes: what the context's entry points ask, without the lock.
    let hasMail = Atomic<Bool>(false)
    /// Set while a merge is queued on the context's executor (`receive`): one at a time, so a
    /// context whose executor does not run for a while (a busy main actor) holds one job, not
    /// one per save, and is freed once that job has run.
    let mergeQueued = Atomic<Bool>(false)
    /// `false` when the context keeps what its objects last loaded
    /// (`automaticallyMergesChanges`): notes are then taken and dropped.
    var isOn = true
    /// How many saves' notes wait for a context before they are folded into one.
    static let foldThreshold = 32

    /// Keeps another context's save until the context merges it.
    func keep(_ note: SaveNote) {
        inbox.withLock { notes in
            notes.append(note)
            // An idle context (one nobody calls into) would keep every save's note: past a
            // few, they are folded into one, which names each changed row once.
            if notes.count > Self.foldThreshold { notes = [SaveNote(folding: notes)] }
        }
        hasMail.store(true, ordering: .releasing)
    }

    /// Applies the saves of other contexts (and, on PostgreSQL, other processes) received
    /// since the last merge. Deleted rows leave the context. Registered objects of updated
    /// rows take the stored values, keeping their own unsaved changes; where both changed an
    /// attribute, the merge policy decides:
    /// `.incomingWins` keeps this context's value (its save will write it), `.storedWins`
    /// takes the stored one, `.fail` keeps this context's and lets its next save fail.
    func mergeInbox() {
        hasMail.store(false, ordering: .relaxed)
        let notes = inbox.withLock { notes in
            defer { notes.removeAll() }
            return notes
        }
        guard isOn else { return }
        // Rows may have joined or left the to-many lists: they are read again when asked for.
        if !notes.isEmpty { context.graph.generation &+= 1 }
        for note in notes {
            for (position, (state, changes)) in zip(context.identity.states, note.entities).enumerated()
            where !changes.isEmpty || note.unlisted.contains(position) {
                for rowID in changes.deleted {
                    guard let object = state.byRowID[rowID] else { continue }
                    detachDeletedElsewhere(object, in: state)
                }
                // An entity changed in rows not listed (another process's large save, or saves
                // missed): every object of it is read again; those whose row is gone leave.
                let registered =
                    note.unlisted.contains(position)
                    ? state.byRowID.objects : changes.updated.compactMap { state.byRowID[$0] }
                guard !registered.isEmpty else { continue }
                // A store that cannot be read now leaves the objects as they are (a later
                // fetch or refresh reads the rows again), and the next throwing call says so.
                do {
                    try refresh(registered, in: state, keepingChanges: true)
                } catch {
                    context.noteLoadFailure(
                        error, reading: "another context's changes to \(registered.count) objects",
                        entity: state.entity.name)
                }
            }
        }
        context.notifyObservers(of: notes)
    }

    /// An object whose row another context deleted: it leaves this context's identity map,
    /// unique index and fetches. It keeps its context, so that a change made to it is not
    /// lost without a word: the save that would write it fails with `rowMissing`.
    func detachDeletedElsewhere(_ object: ManagedObject, in state: EntityState) {
        if let rowID = object.rowID, state.byRowID[rowID] === object { state.byRowID[rowID] = nil }
        object.rowIsGone = true
        if object.state == .deleted { state.deleted[ObjectIdentifier(object)] = nil }
    }

    /// Reads the rows of `objects` and gives each the stored values. With `keepingChanges`,
    /// attributes changed here keep their values, as the merge policy says (see
    /// `mergeInbox`); without, every change is dropped. Objects whose row is gone leave the
    /// context.
    func refresh(_ objects: [ManagedObject], in state: EntityState, keepingChanges: Bool) throws {
        var pending = Dictionary(objects.compactMap { object in object.rowID.map { ($0, object) } }) { first, _ in first
        }
        guard !pending.isEmpty else { return }
        let query = StoreQuery(state.entity.schema, filter: .rowIDs(pending.keys.sorted()))
        try context.container.store.fetch(query) { row in
            guard let object = pending.removeValue(forKey: row.rowID) else { return }
            try take(row, into: object, in: state, keepingChanges: keepingChanges)
        }
        for object in pending.values {
            detachDeletedElsewhere(object, in: state)
        }
    }

    /// Gives `object` the values of its row, as `refresh` says.
    /// Whether two values of `attribute` are the same as the store keeps them.
    private static func same(_ first: Any, _ second: Any, as attribute: AttributeDescription) -> Bool {
        guard let first = try? attribute.codec.storedValue(for: first),
            let second = try? attribute.codec.storedValue(for: second)
        else { return false }
        return first == second
    }

    func take(_ row: any StoreRow, into object: ManagedObject, in state: EntityState, keepingChanges: Bool)
        throws
    {
        try withContext { context in
            let policy = context.policyInEffect.kind
            let id = ObjectIdentifier(object)
            // The saved state is changed where it is, never copied out and written back: an
            // observer told of a merged value may change another attribute meanwhile, whose
            // saved value is kept there (`SavedValues`). Looked up only while some object of the
            // entity has one, asked each time, since such an observer may make the first.
            var uniqueChanged = false
            for attribute in state.entity.attributes {
                let index = attribute.index
                let stored = try inPlace(state.entity, attribute) { try attribute.codec.read(row, column: index) }
                if keepingChanges, object.restatedAttributes.contains(index), !object.holds(stored, for: attribute) {
                    // Set to what the context saw, which the store no longer holds: a change
                    // now, unless the stored value wins. What the context saw is what the
                    // object holds: kept, as a change's saved value is.
                    object.restatedAttributes.remove(index)
                    if policy != .storedWins {
                        // Only `.fail` compares with the kept value: `.incomingWins` records
                        // the row's below, over it.
                        if policy == .fail, !state.updated.isEmpty {
                            state.updated[id]?.values.keepValue(atSlot: index, of: object)
                        }
                        object.changedAttributes.insert(index)
                    }
                }
                let changedHere = keepingChanges && object.changedAttributes.contains(index)
                if changedHere {
                    switch policy {
                    case .incomingWins:
                        // This context's value stays; the store's is what it last saw now.
                        if !state.updated.isEmpty {
                            state.updated[id]?.rowHolds(stored, atSlot: index, changedHere: true)
                        }
                        continue
                    case .fail:
                        if !state.updated.isEmpty { state.updated[id]?.movedUnder.insert(index) }
                        continue
                    case .storedWins:
                        // The stored value wins where the other side changed it: where the row no
                        // longer holds what this context saw. A change to an attribute it did not
                        // touch stays (the row's note names the row, not its columns).
                        // One never loaded here: nothing says the other side changed it.
                        if let kept = state.updated[id]?.values.keptValue(atSlot: index) {
                            guard let seen = kept else { continue }
                            if Self.same(seen, stored, as: attribute) { continue }
                        }
                        object.changedAttributes.remove(index)
                    }
                }
                // What a rollback puts back is what the object sees now: a kept value becomes
                // the row's; a slot not kept takes the row's value below.
                // Without keeping changes the saved state goes once the merge is done.
                if keepingChanges, !state.updated.isEmpty {
                    state.updated[id]?.rowHolds(stored, atSlot: index, changedHere: false)
                }
                if !object.unloaded.contains(index), object.holds(stored, for: attribute) { continue }
                object.observedChange(atSlot: index) { object.setPrimitiveValue(stored, of: attribute) }
                object.unloaded.remove(index)
                if attribute.isUnique { uniqueChanged = true }
            }
            if !keepingChanges {
                object.changedAttributes.removeAll()
                object.restatedAttributes.removeAll()
            }
            if object.changedAttributes.isEmpty && object.restatedAttributes.isEmpty {
                state.updated[id] = nil
            }
            if uniqueChanged { state.index(object, in: context) }
        }
    }
}
