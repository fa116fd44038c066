/// Where the context calls a model's life-cycle hooks (`ManagedObject.awakeFromInsert()` and
/// the others), at Core Data's moments.
extension ManagedObjectContext {
    /// Calls `awakeFromInsert()` on a new object that has just joined the context. What the
    /// object was given before (decoded, or set before `insert`) wins over what the hook sets,
    /// as if the hook had run first; what the hook sets alone is a default, which an object
    /// that turns out to name a stored row does not pass on to it (see `standIn`).
    func awaken(_ object: ManagedObject) {
        let given = object.changedAttributes
        let before = object.values
        object.awakeFromInsert()
        // Nothing written: the value buffer is still the one shared with `before`.
        let unchanged = before.withUnsafeBufferPointer { old in
            object.values.withUnsafeBufferPointer { new in old.baseAddress == new.baseAddress }
        }
        guard !unchanged, object.state == .inserted, object.managedObjectContext === self else { return }
        let entity = object.entity
        for attribute in entity.attributes
        where !attribute.isRelationship && given.contains(attribute.index) {
            object.setPrimitiveValue(before[attribute.index], of: attribute)
        }
        let defaults = object.changedAttributes.subtracting(given)
        if !defaults.isEmpty { awokenDefaults[ObjectIdentifier(object)] = defaults }
        if entity.uniqueAttributes.contains(where: { given.contains($0.index) }) {
            state(for: entity).index(object, in: self)
        }
    }

    /// Attributes of `object` that only `awakeFromInsert()` set.
    func defaultsFromAwake(of object: ManagedObject) -> AttributeSet {
        awokenDefaults.isEmpty ? AttributeSet() : awokenDefaults[ObjectIdentifier(object)] ?? AttributeSet()
    }

    /// Before a save checks anything: `willSave()` on each inserted, changed and deleted
    /// object. Objects a hook inserts or changes get theirs too, once.
    func callWillSave() {
        var called = Set<ObjectIdentifier>()
        var count = 0
        repeat {
            // Again only when a hook inserted, changed or deleted other objects.
            count = pendingChangeCount
            for state in states {
                for object in state.inserted where state.isLive(object) { call(object, &called) }
                for saved in state.updated.values { call(saved.object, &called) }
                for object in state.deleted.values { call(object, &called) }
            }
        } while pendingChangeCount != count
    }

    /// `willSave()` on `object`, once a save.
    private func call(_ object: ManagedObject, _ called: inout Set<ObjectIdentifier>) {
        if called.insert(ObjectIdentifier(object)).inserted { object.willSave() }
    }

    /// How many objects wait to be saved, to see whether a hook added any.
    private var pendingChangeCount: Int {
        states.reduce(0) { $0 + $1.inserted.count + $1.updated.count + $1.deleted.count }
    }

    /// `validateForInsert()` and `validateForUpdate()`: a throw fails the save, naming the
    /// object.
    func callValidation(in state: EntityState) throws {
        for object in state.inserted where state.isLive(object) {
            try validating(object) { try object.validateForInsert() }
        }
        for saved in state.updated.values where saved.object.state == .persisted {
            try validating(saved.object) { try saved.object.validateForUpdate() }
        }
    }

    private func validating(_ object: ManagedObject, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch var error as StashError {
            error.entity = error.entity ?? object.entity.name
            throw error
        } catch {
            throw StashError(
                .validationFailed, "\(object.objectID) is not valid: \(error); nothing was saved",
                entity: object.entity.name)
        }
    }
}
