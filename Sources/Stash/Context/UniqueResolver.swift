/// The context's part that keeps one object per unique value: a new object whose unique
/// value (or composite key) the context or the store already has becomes a stand-in for the
/// object that has it, a decoded value that a stored row holds makes the new object that
/// row's (`adoptRow`), and a save first merges new objects that share a value. What happens
/// to the values given follows the object's `UniqueMatch`, else the merge policy.
final class UniqueResolver: ContextPart {
    /// A new object whose unique value the context or the store already has: it becomes a
    /// stand-in for the object that has it, so a context never holds two objects for one
    /// value. Called when a new object is inserted and when a unique attribute of a new object
    /// is set: the hand-written `init(from:)` inserts a blank object (`init(context:)`) and
    /// then sets `id`.
    ///
    /// Under `.incomingWins` (or `UniqueMatch.upsert`) the values the new object was given go
    /// to the holder, and so does every value set through it later: its properties read and
    /// write the holder's values (see `standIn(_:for:in:)`). Under `.storedWins` (or
    /// `.adopt`) the values it was given before are dropped. Under `.fail`, with no choice
    /// of its own, it stays apart and the next save throws `uniqueConflict`.
    func resolveUniqueValues(of object: ManagedObject, in state: EntityState) {
        withContext { context in
            guard object.state == .inserted, object.uniqueMatch != nil || context.policyInEffect.kind != .fail else {
                return state.index(object, in: context)
            }
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index) else { continue }
                var holder = state.lookup(index, key, in: context)
                if holder == nil {
                    // A store that fails here leaves the match to the save, which asks again.
                    holder = try? storedObject(for: key, unique: index, in: state)
                }
                if let holder, holder !== object {
                    return standIn(object, for: holder, in: state)
                }
            }
            state.index(object, in: context)
        }
    }

    /// Makes `object` stand in for `holder`: its properties read and write the holder's values
    /// (see `Attribute`), so reading a property of either gives the same value and writing through either is a
    /// change of the holder, saved with it. Public properties and context calls (`objectID`,
    /// `hasChanges`, `delete`) answer for the holder too.
    func standIn(_ object: ManagedObject, for holder: ManagedObject, in state: EntityState) {
        // No longer a live object first, so that setting the holder's values cannot find it.
        object.state = .standIn
        object.standIn = holder
        state.standIns[Int64(bitPattern: object.temporaryID)] = object
        if upsertsGivenValues(of: object) {
            // Defaults `awakeFromInsert()` set are for a new object, not a change of the holder.
            let given = object.changedAttributes.subtracting(context.tracker.defaultsFromAwake(of: object))
            for attribute in state.entity.attributes where given.contains(attribute.index) {
                guard let value = object.value(of: attribute) else { continue }
                if holder.holds(value, for: attribute) {
                    holder.restate(attribute, in: context)
                } else {
                    holder.setValue(value, of: attribute, knownToDiffer: true)
                }
            }
        }
        object.changedAttributes.removeAll()
    }

    /// After a committed save that matched new `object` to `holder`'s row
    /// (`ChangeTracker.apply`): `object` stands in for `holder`, which takes the values the
    /// save wrote from `object` (the columns `reported` has no value for) and, for attributes
    /// it never loaded, the row's, as the store reported them. No change is left: the save
    /// wrote them. Its other values stay: `reported` may be older than a write of the same
    /// save to the row (another new object that matched it by another unique attribute).
    func standIn(
        _ object: ManagedObject, savedOnto holder: ManagedObject, reported: [StoredValue?], in state: EntityState
    ) {
        withContext { context in
            for attribute in state.entity.attributes {
                let index = attribute.index
                let written = reported.isEmpty || reported[index] == nil
                guard written || holder.unloaded.contains(index), let value = object.value(of: attribute) else {
                    continue
                }
                if !holder.unloaded.contains(index), holder.holds(value, for: attribute) { continue }
                holder.observedChange(atSlot: index) { holder.setPrimitiveValue(value, of: attribute) }
                holder.unloaded.remove(index)
            }
            object.changedAttributes.removeAll()
            object.restatedAttributes.removeAll()
            object.state = .standIn
            object.standIn = holder
            state.standIns[Int64(bitPattern: object.temporaryID)] = object
            state.index(holder, in: context)
            // Lists that held the new object are read again: they hold its holder.
            context.graph.generation &+= 1
        }
    }

    /// Takes a stand-in out of the context (its insert undone, the context reset), as an
    /// object of its own that reads what it read through its holder: every write through it
    /// went to the holder, and its own slots hold only what was set before it stood in (a
    /// required attribute never set there would trap when read).
    func detach(standIn object: ManagedObject, in state: EntityState) {
        let holder = object.resolved
        object.values = holder.values
        object.unloaded = holder.unloaded
        object.changedAttributes.removeAll()
        object.restatedAttributes.removeAll()
        reinstate(object, in: state)
        object.state = .transient
        object.managedObjectContext = nil
    }

    /// Undoes `standIn(_:for:in:)` for `object`: a new object of its own again, out of the
    /// stand-ins' table (a failed save's undo, a failed decode's journal).
    func reinstate(_ object: ManagedObject, in state: EntityState) {
        object.standIn = nil
        object.state = .inserted
        state.standIns.forget(object)
    }

    /// Whether the values a new object was given go to the object it turns out to stand in
    /// for: its own `UniqueMatch`, or else the merge policy's answer.
    func upsertsGivenValues(of object: ManagedObject) -> Bool {
        switch object.uniqueMatch {
        case .upsert: true
        case .adopt: false
        case nil: context.policyInEffect.kind == .incomingWins
        }
    }

    /// `standIn(_:for:in:)` during a save, with what puts both objects back if the save fails.
    func standIn(
        _ object: ManagedObject, for holder: ManagedObject, in state: EntityState, undo: inout [() -> Void]
    ) {
        let ownChanges = object.changedAttributes
        let before = HolderSnapshot(of: holder, in: state)
        standIn(object, for: holder, in: state)
        undo.append { [self] in
            reinstate(object, in: state)
            object.changedAttributes = ownChanges
            before.restore(in: state)
        }
    }

    /// Before a save: each new object inserted with a `UniqueMatch` of its own whose unique
    /// value a stored row holds now (another context saved it after the insert) stands in
    /// for that row's object as its choice says, so the save does not decide by the
    /// context's merge policy instead. One look-up per such object; none for an entity that
    /// never had one. `undo` puts each back if the save fails.
    func resolveExplicitMatches(in state: EntityState, undo: inout [() -> Void]) throws {
        guard state.hasExplicitMatches, !state.entity.uniqueAttributes.isEmpty else { return }
        for object in state.inserted where state.isLive(object) && object.uniqueMatch != nil {
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index),
                    let holder = try storedObject(for: key, unique: index, in: state), holder !== object
                else { continue }
                standIn(object, for: holder, in: state, undo: &undo)
                break
            }
        }
    }

    /// Merges new objects whose unique value another live object of the context holds
    /// into that object (which the unique index names: the first one seen).
    func mergeDuplicateInserts(in state: EntityState, undo: inout [() -> Void]) throws {
        guard state.mayHoldDuplicates else { return }
        undo.append { state.mayHoldDuplicates = true }
        for object in state.inserted where state.isLive(object) {
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index) else { continue }
                guard let holder = state.lookup(index, key, in: context) else {
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
        let before = HolderSnapshot(of: holder, in: state)
        let context = self.context!
        undo.append {
            before.restore(in: state)
            object.state = .inserted
            object.managedObjectContext = context
        }
        switch context.policyInEffect.kind {
        case .fail:
            throw Self.conflict(state.entity, attribute, key)
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

    static func conflict(
        _ entity: EntityDescription, _ attribute: AttributeDescription, _ key: StoredValue,
        _ reason: String = "is already taken and the merge policy is .fail"
    ) -> StashError {
        StashError(.uniqueConflict, "the value \(key) \(reason)", entity: entity.name, attribute: attribute.name)
    }

    /// The context's object for the stored row that holds `key` in the `index`th unique
    /// attribute, made (partly loaded) if the context has none; `nil` if no row holds it, or
    /// the row's object moved to another value in memory.
    func storedObject(for key: StoredValue, unique index: Int, in state: EntityState) throws -> ManagedObject? {
        try withContext { context in
            let entity = state.entity
            let unique = entity.uniqueAttributes[index]
            guard
                let rowID = try state.storedKeys[index].rowID(
                    for: key, column: unique.index, of: entity.schema, in: context.container)
            else { return nil }
            if let registered = state.byRowID[rowID] {
                return registered.unloaded.contains(unique.index) && registered.state == .persisted ? registered : nil
            }
            let object = entity.type.init()
            object.cachedEntity = entity
            object.setPrimitiveValue(try unique.codec.value(from: key), of: unique)
            adoptRow(rowID, as: object, matchedBy: unique, key: key, at: index, changing: AttributeSet(), in: state)
            return object
        }
    }

    /// Makes `object` the context's object for stored row `rowID`, whose `unique` attribute
    /// holds `key` (the object holds it too). The attributes in `changed` hold new values,
    /// changes not yet compared with the row; every other attribute is loaded from the row
    /// when read (see `FaultLoader.fulfill`).
    func adoptRow(
        _ rowID: Int64, as object: ManagedObject, matchedBy unique: AttributeDescription, key: StoredValue,
        at matchedIndex: Int, changing changed: AttributeSet, in state: EntityState
    ) {
        withContext { context in
            let entity = state.entity
            var unknown = AttributeSet.all(entity.attributes.count)
            unknown.remove(unique.index)
            var changed = changed
            changed.remove(unique.index)
            for attribute in entity.attributes
            where unknown.contains(attribute.index) && !changed.contains(attribute.index) {
                object.setPrimitiveValue(nil, of: attribute)
            }
            object.unloaded = unknown.subtracting(changed)
            object.changedAttributes = changed
            context.registerPersisted(object, rowID: rowID, in: state, indexed: false)
            state.partial.append(rowID)
            if !changed.isEmpty {
                // What it was given stands for values never loaded: kept as unset, so that a
                // rollback unsets them and they are read from the row again (`unknown`).
                var given = SavedValues()
                given.reserveCapacity(changed.count)
                for attribute in entity.attributes where changed.contains(attribute.index) {
                    given.set(nil, atSlot: attribute.index)
                }
                state.updated[ObjectIdentifier(object)] = SavedState(
                    object: object, values: given, unloaded: unknown, unverified: changed)
            }
            state.setEntry(object, matchedIndex, key)
            if entity.uniqueAttributes.count > 1 { state.index(object, in: context) }
        }
    }
}
