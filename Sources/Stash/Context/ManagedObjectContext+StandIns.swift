extension ManagedObjectContext {
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
        guard object.state == .inserted, object.uniqueMatch != nil || mergePolicy.kind != .fail else {
            return state.index(object, in: self)
        }
        for index in state.entity.uniqueAttributes.indices {
            guard let key = state.uniqueKey(of: object, index) else { continue }
            var holder = state.lookup(index, key, in: self)
            if holder == nil {
                // A store that fails here leaves the match to the save, which asks again.
                holder = try? storedObject(for: key, unique: index, in: state)
            }
            if let holder, holder !== object {
                return standIn(object, for: holder, in: state)
            }
        }
        state.index(object, in: self)
    }

    /// Makes `object` stand in for `holder`: its wrappers are pointed at the holder's values,
    /// so reading a property of either gives the same value and writing through either is a
    /// change of the holder, saved with it. Public properties and context calls (`objectID`,
    /// `hasChanges`, `delete`) answer for the holder too.
    func standIn(_ object: ManagedObject, for holder: ManagedObject, in state: EntityState) {
        // No longer a live object first, so that setting the holder's values cannot find it.
        object.state = .standIn
        object.standIn = holder
        if upsertsGivenValues(of: object) {
            // Defaults `awakeFromInsert()` set are for a new object, not a change of the holder.
            let given = object.changedAttributes.subtracting(defaultsFromAwake(of: object))
            for attribute in state.entity.attributes where given.contains(attribute.index) {
                guard let value = object.value(of: attribute) else { continue }
                if holder.holds(value, for: attribute) {
                    holder.restate(attribute, in: self)
                } else {
                    holder.setValue(value, of: attribute, knownToDiffer: true)
                }
            }
        }
        object.changedAttributes.removeAll()
        ObjectLayout.of(type(of: object)).repoint(object, to: holder.storage)
    }

    /// Whether the values a new object was given go to the object it turns out to stand in
    /// for: its own `UniqueMatch`, or else the merge policy's answer.
    func upsertsGivenValues(of object: ManagedObject) -> Bool {
        switch object.uniqueMatch {
        case .upsert: true
        case .adopt: false
        case nil: mergePolicy.kind == .incomingWins
        }
    }

    /// Before a save: each new object inserted with a `UniqueMatch` of its own whose unique
    /// value a stored row holds now (another context saved it after the insert) stands in
    /// for that row's object as its choice says, so the save does not decide by the
    /// context's merge policy instead. One look-up per such object; none for an entity that
    /// never had one. `undo` puts each back if the save fails.
    /// `standIn(_:for:in:)` during a save, with what puts both objects back if the save fails.
    func standIn(
        _ object: ManagedObject, for holder: ManagedObject, in state: EntityState, undo: inout [() -> Void]
    ) {
        let ownStorage = object.storage
        let ownChanges = object.changedAttributes
        let holderValues = holder.values
        let holderChanges = holder.changedAttributes
        let holderRestated = holder.restatedAttributes
        let holderWasUpdated = state.updated[ObjectIdentifier(holder)] != nil
        standIn(object, for: holder, in: state)
        undo.append {
            object.state = .inserted
            object.standIn = nil
            ObjectLayout.of(type(of: object)).repoint(object, to: ownStorage)
            object.changedAttributes = ownChanges
            holder.values = holderValues
            holder.changedAttributes = holderChanges
            holder.restatedAttributes = holderRestated
            if !holderWasUpdated { state.updated[ObjectIdentifier(holder)] = nil }
        }
    }

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
}
