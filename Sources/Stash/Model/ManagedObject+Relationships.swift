/// The entry points of `@Relationship`: a wrapper reads and writes through its object, which
/// hands the work to its context (loading, inverses, change tracking), or keeps it itself
/// while the object is in no context.
extension ManagedObject {
    /// The target of the to-one relationship at `slot`; loads it the first time it is read.
    @usableFromInline final func toOneTarget(atSlot slot: Int) -> ManagedObject? {
        if probedSlots != nil {
            probedSlots!.append(slot)
            return ConstructionFrame.current.relationshipProbes != nil ? probeTarget(atSlot: slot) : nil
        }
        // A stand-in reads the object it stands in for. Tested here, not through `resolved`,
        // which took `self` as a new reference for every read (graph fetch, callgrind).
        if let standIn { return standIn.resolved.toOneTarget(atSlot: slot) }
        if isObserved { observeAccess(atSlot: slot) }
        if unloaded.contains(slot) { managedObjectContext?.faults.fulfill(self) }
        switch RelationshipTarget(of: self, atSlot: slot) {
        case .none:
            return nil
        case .object(let target):
            return target.resolved
        case .row(let rowID):
            // The object holds its context while this runs, and finding a held target runs no
            // code that could let it go: the context is borrowed, not retained. The retains of
            // the context and of what the read passed through cost about 340 instructions a
            // read: graph fetch 117.1M -> 110.4M, 20,000 essays under callgrind.
            guard let context = managedObjectContext.map({ Unmanaged.passUnretained($0) }) else { return nil }
            let held = context._withUnsafeGuaranteedRef { context -> ManagedObject?? in
                // Merging other contexts' saves may change this very slot: the slow way below.
                guard !context.merger.hasMail.load(ordering: .relaxed), let target = layout.toOneTargets[slot] else {
                    return .none
                }
                return .some(context.identity.heldObject(forRow: rowID, ofType: target))
            }
            // One the context holds is read as it is, not kept: the read then writes nothing
            // (it enters nothing that would check where it runs), and whoever holds the target
            // keeps it alive.
            if case .some(let held?) = held { return held.rowIsGone ? nil : held }
            return loadedTarget(forRow: rowID, atSlot: slot)
        }
    }

    /// `toOneTarget`'s way for a row the context does not hold, or for a read that finds other
    /// contexts' saves to merge first: merges them, then loads the target and keeps it.
    @inline(never)
    private final func loadedTarget(forRow rowID: Int64, atSlot slot: Int) -> ManagedObject? {
        guard let context = managedObjectContext else { return nil }
        // Loading enters the context, which merges other contexts' saves first: one may
        // change this very slot, so the slot is read again after it, not kept as it was.
        if context.merger.hasMail.load(ordering: .relaxed) {
            context.entering {}
            if !context.merger.hasMail.load(ordering: .relaxed) { return toOneTarget(atSlot: slot) }
            // Not merged (an entry point of this context is under way): the look-up of a held
            // target that `toOneTarget` left for after the merge.
            if let target = layout.toOneTargets[slot],
                let held = context.identity.heldObject(forRow: rowID, ofType: target)
            {
                return held.rowIsGone ? nil : held
            }
        }
        let relationship = entity.relationship(atSlot: slot)!
        guard let target = context.graph.relatedObject(forRow: rowID, of: relationship, from: self) else {
            return nil
        }
        // Loaded: kept, so the next read costs nothing; not a change. Not while an
        // all-or-nothing decode is under way: undone, it takes what it loaded out of the
        // context, and the slot would keep an object the context no longer knows.
        if context.tracker.journal == nil {
            keep(target, inSlot: slot, inverseList: relationship.inverseListIndex)
        }
        return target
    }

    /// Keeps a loaded `target` in the to-one `slot` as the object, unless the target has the
    /// inverse list (`inverseList`, its index among the target's to-many relationships)
    /// loaded: that list may hold this object, and a to-one holding the target as well would
    /// make a cycle, which keeps both (and their context) alive for good. The slot then stays
    /// the row, found through the context while anyone holds the target.
    final func keep(_ target: ManagedObject, inSlot slot: Int, inverseList: Int?) {
        if let inverseList, target.toManyLists?[inverseList] != nil { return }
        setTarget(.object(target), inSlot: slot)
    }

    /// Names `owner` by its row in the to-one `slot`, where the slot holds it as an object
    /// and `owner`'s list holding this object is loaded: the list holds this object, and the
    /// row finds `owner` through the context while anyone holds it. Not for an unsaved
    /// owner (no row), nor a changed slot (written at the save as it is).
    final func nameByRow(_ owner: ManagedObject, inSlot slot: Int) {
        guard case .object(let target) = RelationshipTarget(of: self, atSlot: slot), target === owner,
            owner.state == .persisted, let rowID = owner.rowID, !changedAttributes.contains(slot)
        else { return }
        setTarget(.row(rowID), inSlot: slot)
    }

    /// A probe of the to-one relationship's target, for `EntityDescription.path(for:)`.
    private func probeTarget(atSlot slot: Int) -> ManagedObject? {
        guard let relationship = entity.relationship(atSlot: slot),
            let target = try? EntityRegistry.shared.entity(for: relationship.targetType)
        else { return nil }
        let probe = target.makeProbe()
        ConstructionFrame.current.relationshipProbes?.append(probe)
        return probe
    }

    @usableFromInline final func setToOneTarget(_ target: ManagedObject?, atSlot slot: Int) {
        let object = resolved
        let relationship = object.entity.relationship(atSlot: slot)!
        if let context = object.managedObjectContext {
            context.graph.setTarget(target?.resolved, of: relationship, in: object)
        } else {
            RelationshipEditor(context: nil).setTarget(target?.resolved, of: relationship, in: object)
        }
    }

    /// The objects of the to-many relationship at `index`, loaded the first time they are
    /// read, in their order.
    @usableFromInline final func toManyObjects<Value>(at index: Int, as type: Value.Type) -> Value {
        if probedSlots != nil {
            probedSlots!.append(-index - 1)
            return [ManagedObject]() as! Value
        }
        let object = resolved
        let objects =
            object.managedObjectContext?.graph.relatedObjects(of: object, toMany: index)
            ?? object.toManyLists?[index]?.objects ?? []
        return objects as! Value
    }

    @usableFromInline final func setToManyObjects(_ objects: [ManagedObject], at index: Int) {
        let object = resolved
        let relationship = object.entity.toManyRelationships[index]
        if let context = object.managedObjectContext {
            context.graph.setObjects(objects.map(\.resolved), of: relationship, in: object)
        } else {
            RelationshipEditor(context: nil).setObjects(
                objects.map(\.resolved), of: relationship, in: object, current: object.loadedList(index)?.objects ?? [])
        }
    }

    /// The loaded list of the to-many relationship at `index`, if it is loaded.
    final func loadedList(_ index: Int) -> ToManyList? {
        toManyLists?[index]
    }

    /// Keeps `list` as the to-many relationship's objects. A list set in a context (not
    /// `loaded` from the store) is let go by the context's next save (`dropListsSetSinceSave`).
    final func keepList(_ list: ToManyList, at index: Int, loaded: Bool = false) {
        if toManyLists == nil {
            toManyLists = Array(repeating: nil, count: entity.toManyRelationships.count)
        }
        toManyLists![index] = list
        if !loaded { managedObjectContext?.graph.dropAfterSave(list, of: self, at: index) }
    }
}

/// The objects of one to-many relationship of one object, once loaded or set, in order.
final class ToManyList {
    /// The objects, in order. Setting them drops `members`, rebuilt when next needed.
    var objects: [ManagedObject] {
        get { stored }
        set {
            stored = newValue
            members = nil
        }
    }
    private var stored: [ManagedObject]
    /// Which objects `stored` holds, once a membership test of a long list needed it: an
    /// import that appends a thousand children one by one stays linear.
    private var members: Set<ObjectIdentifier>?
    /// The context's graph generation (`ObjectGraph.generation`) when loaded: another context's save, a rollback or a
    /// refresh since makes the list stale, to be loaded again.
    let generation: UInt64
    /// Set once the list's context keeps it to let go after its next save
    /// (`ManagedObjectContext.listsSetSinceSave`), so it is kept there once.
    var awaitsDrop = false
    /// The owning side of a many-to-many relationship: the row ids of the members the store
    /// held when the list was read (or last saved), so a save writes only what changed since
    /// and another writer's changes to the list survive it. `nil`: the list replaces the
    /// stored one (set without reading it, decoded under `.replace`, or a new object's).
    var storedRows: Set<Int64>?

    init(_ objects: [ManagedObject], generation: UInt64, storedRows: Set<Int64>? = nil) {
        self.stored = objects
        self.generation = generation
        self.storedRows = storedRows
    }

    func contains(_ object: ManagedObject) -> Bool {
        if stored.count < 16 { return stored.contains { $0 === object } }
        if members == nil { members = Set(stored.map(ObjectIdentifier.init)) }
        return members!.contains(ObjectIdentifier(object))
    }

    func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        objects.removeAll { $0 === object }
    }

    /// Appends `object` unless the list holds it; `true` if it did.
    @discardableResult
    func append(_ object: ManagedObject) -> Bool {
        guard !contains(object) else { return false }
        stored.append(object)
        members?.insert(ObjectIdentifier(object))
        return true
    }
}
