/// Where the context calls a model's life-cycle hooks (`ManagedObject.awakeFromInsert()` and
/// the others), at Core Data's moments.
extension ChangeTracker {
    /// Calls `awakeFromInsert()` on a new object that has just joined the context. What the
    /// object was given before (decoded, or set before `insert`) wins over what the hook sets,
    /// as if the hook had run first; what the hook sets alone is a default, which an object
    /// that turns out to name a stored row does not pass on to it (see `UniqueResolver.standIn`).
    func awaken(_ object: ManagedObject) {
        let given = object.changedAttributes
        // A stack: a hook may insert another object, whose hook may write to this one.
        awakenings.append(Awakening(of: object, given: given))
        let wasAwakening = object.isAwakening
        object.isAwakening = true
        object.awakeFromInsert()
        object.isAwakening = wasAwakening
        let awoken = awakenings.removeLast()
        guard awoken.wrote, object.state == .inserted, object.managedObjectContext === context else { return }
        let entity = object.entity
        for attribute in entity.attributes
        where !attribute.isRelationship && given.contains(attribute.index) {
            if let before = awoken.given?[attribute.index] { object.setPrimitiveValue(before, of: attribute) }
        }
        let defaults = object.changedAttributes.subtracting(given)
        if !defaults.isEmpty { awokenDefaults[ObjectIdentifier(object)] = defaults }
        if entity.uniqueAttributes.contains(where: { given.contains($0.index) }) {
            context.identity.state(for: entity).index(object, in: context)
        }
    }

    /// What `awakeFromInsert()` did to the object it was called on so far.
    struct Awakening {
        let object: ObjectIdentifier
        /// The attributes the object was given before; each one's value before the hook
        /// first wrote it.
        let givenAttributes: AttributeSet
        /// Made at the hook's first write of such a value: most hooks write none.
        var given: [Int: Any?]?
        /// Whether the hook wrote any value.
        var wrote = false

        init(of object: ManagedObject, given: AttributeSet) {
            self.object = ObjectIdentifier(object)
            givenAttributes = given
        }
    }

    /// Called before an object being awoken has the value at `slot` written, by its own hook
    /// or another's: the value it was given there is kept, to be put back once its hook returns.
    func awakeWillWrite(_ object: ManagedObject, atSlot slot: Int) {
        guard let position = awakenings.lastIndex(where: { $0.object == ObjectIdentifier(object) }) else { return }
        awakenings[position].wrote = true
        guard awakenings[position].givenAttributes.contains(slot), awakenings[position].given?[slot] == nil else {
            return
        }
        awakenings[position].given = awakenings[position].given ?? [:]
        awakenings[position].given![slot] = .some(object.value(atSlot: slot))
    }

    /// Attributes of `object` that only `awakeFromInsert()` set.
    func defaultsFromAwake(of object: ManagedObject) -> AttributeSet {
        awokenDefaults.isEmpty ? AttributeSet() : awokenDefaults[ObjectIdentifier(object)] ?? AttributeSet()
    }

    /// Before a save checks anything: `willSave()` on each inserted, changed and deleted
    /// object. Objects a hook inserts or changes get theirs too, once.
    ///
    /// The first walk keeps no record of whom it called: it goes over copies of the pending
    /// lists (the dictionaries are copied only if a hook changes them), and only when a hook
    /// added pending objects are those copies turned into the set of objects called, for
    /// the walks that follow. A set built every save cost 870 instructions an object of a
    /// 20,000-object import (stash-bench under callgrind), for models that mostly override
    /// no hook.
    func callWillSave() {
        withContext { context in
            let count = context.identity.pendingChangeCount
            var walked: [PendingLists] = []
            walked.reserveCapacity(context.identity.states.count)
            for state in context.identity.states {
                let inserted = state.inserted
                for object in inserted where Self.isOwnNew(object, context) { object.willSave() }
                let updated = state.updated
                for position in updated.values.indices { updated.values[position].object.willSave() }
                let deleted = state.deleted
                // A deleted object may be listed as changed too: called once.
                for (id, object) in deleted where updated[id] == nil { object.willSave() }
                walked.append(PendingLists(inserted: inserted, updated: updated, deleted: deleted))
            }
            guard context.identity.pendingChangeCount != count else { return }
            var called = Set<ObjectIdentifier>()
            for lists in walked {
                for object in lists.inserted where Self.isOwnNew(object, context) {
                    called.insert(ObjectIdentifier(object))
                }
                called.formUnion(lists.updated.keys)
                called.formUnion(lists.deleted.keys)
            }
            walked = []
            var again = 0
            repeat {
                // Again only when a hook inserted, changed or deleted other objects.
                again = context.identity.pendingChangeCount
                for state in context.identity.states {
                    for object in state.inserted where Self.isOwnNew(object, context) { call(object, &called) }
                    for saved in state.updated.values { call(saved.object, &called) }
                    for object in state.deleted.values { call(object, &called) }
                }
            } while context.identity.pendingChangeCount != again
        }
    }

    /// `EntityState.isLive`, without loading the state's unowned reference to the context for
    /// each object.
    @inline(__always)
    private static func isOwnNew(_ object: ManagedObject, _ context: ManagedObjectContext) -> Bool {
        object.state == .inserted && object.managedObjectContext === context
    }

    /// An entity's pending lists as the first `willSave()` walk saw them.
    private struct PendingLists {
        let inserted: [ManagedObject]
        let updated: [ObjectIdentifier: SavedState]
        let deleted: [ObjectIdentifier: ManagedObject]
    }

    /// `willSave()` on `object`, once a save.
    private func call(_ object: ManagedObject, _ called: inout Set<ObjectIdentifier>) {
        if called.insert(ObjectIdentifier(object)).inserted { object.willSave() }
    }

    /// `validateForInsert()` and `validateForUpdate()`: a throw fails the save, naming the
    /// object. The changed objects are reached in place in `updated`, not copied out with
    /// their saved values (which cost 1,500 instructions an object of a 20,000-object edit).
    func callValidation(in state: EntityState) throws {
        try withContext { context in
            for object in state.inserted where Self.isOwnNew(object, context) {
                do {
                    try object.validateForInsert()
                } catch {
                    throw validationFailure(error, of: object)
                }
            }
            let updated = state.updated
            for position in updated.values.indices {
                let object = updated.values[position].object
                guard object.state == .persisted else { continue }
                do {
                    try object.validateForUpdate()
                } catch {
                    throw validationFailure(error, of: object)
                }
            }
        }
    }

    /// What a hook threw, naming the object.
    private func validationFailure(_ error: any Error, of object: ManagedObject) -> StashError {
        var failure: StashError
        if let error = error as? StashError {
            failure = error
            failure.entity = error.entity ?? object.entity.name
        } else {
            failure = StashError(
                .validationFailed, "\(object.objectID) is not valid: \(error); nothing was saved",
                entity: object.entity.name)
        }
        failure.refusedObject = ObjectIdentifier(object)
        return failure
    }
}
