/// What the context changed since a journal began, so a failed decode can undo exactly that
/// and no more: the objects it inserted, the stored rows it took objects for, and the values
/// of the objects it changed as they were before.
final class ChangeJournal {
    // Unchecked, the two fields every journal of the recipe's objects touches: a journal is
    // its context's, used from one isolation at a time (see `Confinement`), and the runtime's
    // check cost 85 instructions an access (340 an essay of stash-bench's graph import).
    @exclusivity(unchecked) private var inserted: [ManagedObject] = []
    /// Whether anything but an insert was recorded since the journal began: `reset` empties
    /// the rest only then.
    @exclusivity(unchecked) private var recordedMore = false
    private var registered: [ManagedObject] = []
    /// Objects deleted, whether each was new, and its temporary ID then.
    private var deleted: [(object: ManagedObject, wasInserted: Bool, temporaryID: UInt64)] = []
    private var snapshots: [ObjectIdentifier: Snapshot] = [:]
    private var lists: [ListKey: ListSnapshot] = [:]
    /// How many lists were waiting to be reconciled (`ObjectGraph.unreconciledLists`).
    private var unreconciled: Int
    /// The first temporary ID of an object inserted since the journal began. Unchecked, as
    /// `inserted` is: read at every change while the journal is open (`coversAsNew`).
    @exclusivity(unchecked) private(set) var firstNewID: UInt64
    /// A `rollback()` or `reset()` called while the journal was open (from an `init(from:)` or
    /// a hook the decode ran): not done, since the decode's undo could no longer be exact, and
    /// thrown as the decode ends (`refusal`), which undoes the decode.
    var refusedCall: String?

    init(unreconciled: Int, firstNewID: UInt64) {
        self.unreconciled = unreconciled
        self.firstNewID = firstNewID
    }

    /// Begins again, emptied (`reset`), where the context stands now: the recipe opens a
    /// journal for each object with relationships, and one kept for the next spares it
    /// an allocation, its arrays' and their release (see `ChangeTracker.spareJournal`).
    func begin(unreconciled: Int, firstNewID: UInt64) {
        assert(inserted.isEmpty && !recordedMore, "a journal begun again before it was emptied")
        self.unreconciled = unreconciled
        self.firstNewID = firstNewID
    }

    /// Lets go of everything recorded. A few inserts are emptied from the end, keeping their
    /// room (`removeAll(keepingCapacity:)` costs more than that); more are let go with their
    /// room, which a whole `context.decode` may have made large, and so is the rest.
    func reset() {
        refusedCall = nil
        if inserted.count > Self.keptRoom { inserted = [] } else { while !inserted.isEmpty { inserted.removeLast() } }
        guard recordedMore else { return }
        recordedMore = false
        registered = []
        deleted = []
        snapshots = [:]
        lists = [:]
    }

    /// The error for a call a decode may not make part way (`save()`, `rollback()`, `reset()`).
    static func refusal(of call: String, in context: ManagedObjectContext) -> StashError {
        StashError(
            .invalidModel,
            "\(call) was called on \(context.name) while it decoded (from an init(from:) or a hook the decode "
                + "ran): a decode is all or nothing, and what it did so far could then not be undone; the decode "
                + "was undone instead. Call \(call) after the decode returns.")
    }

    /// The most inserts whose room `reset` keeps.
    private static let keptRoom = 8

    /// `true` if a change of `object` needs no record: it was inserted since the journal
    /// began, and an undo takes it out of the context whatever it holds.
    @inline(__always)
    func coversAsNew(_ object: ManagedObject) -> Bool {
        object.state == .inserted && object.temporaryID >= firstNewID
    }

    private struct ListKey: Hashable {
        let owner: ObjectIdentifier
        let index: Int
    }

    /// A to-many list as it was: its objects (nil: not loaded), and whether it was changed.
    private struct ListSnapshot {
        let owner: ManagedObject
        let index: Int
        let objects: [ManagedObject]?
        let generation: UInt64
        let storedRows: Set<Int64>?
        let wasChanged: Bool
    }

    private struct Snapshot {
        let object: ManagedObject
        let values: ContiguousArray<Any?>
        let changedAttributes: AttributeSet
        let restatedAttributes: AttributeSet
        let unloaded: AttributeSet
        let wasUpdated: Bool
        /// A new object whose unique value is set to a taken one becomes a stand-in (see
        /// `UniqueResolver.standIn`): undone, it is a new object of its own again.
        let wasStandIn: Bool
        /// A new object a fetch made a stored row's (`ManagedObjectContext.adopt`): undone,
        /// it is the new object it was, not a registered one that leaves with the others.
        let wasInserted: Bool
    }

    func recordInsert(_ object: ManagedObject) {
        inserted.append(object)
    }

    /// An object about to be deleted (a list that replaces dropped it: see `ListDecoding`).
    /// A new object from before the journal keeps its values too: deleted, it may be inserted
    /// again (by a hook), and so made new to the journal, whose changes it does not record. A
    /// saved object's changes are recorded as they come (`recordChange`), deleted or not.
    func recordDelete(_ object: ManagedObject, in state: EntityState) {
        recordedMore = true
        let wasInserted = object.state == .inserted
        deleted.append((object, wasInserted, object.temporaryID))
        if wasInserted, !coversAsNew(object) { recordChange(object, in: state) }
    }

    /// An object the context took for a stored row (a fetch, or decoding a row's unique value).
    func recordRegistration(_ object: ManagedObject) {
        recordedMore = true
        registered.append(object)
    }

    /// Keeps the object's values before its first change in this journal. An object inserted
    /// since it began has none to keep: an undo takes it out of the context (`inserted`), and
    /// no one was given it. (Each essay of a graph import took a copy of its values when its
    /// author was set: 1.6k instructions an essay, stash-bench under callgrind.)
    func recordChange(_ object: ManagedObject, in state: EntityState) {
        if coversAsNew(object) { return }
        let id = ObjectIdentifier(object)
        guard snapshots[id] == nil else { return }
        recordedMore = true
        snapshots[id] = Snapshot(
            object: object, values: object.values, changedAttributes: object.changedAttributes,
            restatedAttributes: object.restatedAttributes, unloaded: object.unloaded,
            wasUpdated: state.updated[id] != nil, wasStandIn: object.state == .standIn,
            wasInserted: object.state == .inserted)
    }

    /// Keeps a to-many list as it was before its first change in this journal.
    func recordList(_ owner: ManagedObject, _ index: Int, in context: ManagedObjectContext) {
        let key = ListKey(owner: ObjectIdentifier(owner), index: index)
        guard lists[key] == nil else { return }
        recordedMore = true
        let list = owner.loadedList(index)
        lists[key] = ListSnapshot(
            owner: owner, index: index, objects: list?.objects, generation: list?.generation ?? 0,
            storedRows: list?.storedRows, wasChanged: owner.changedLists.contains(index))
    }

    /// Puts the context back as it was when the journal began.
    func undo(in context: ManagedObjectContext) {
        for snapshot in lists.values {
            let owner = snapshot.owner
            if let objects = snapshot.objects {
                owner.keepList(
                    ToManyList(objects, generation: snapshot.generation, storedRows: snapshot.storedRows),
                    at: snapshot.index)
            } else if owner.toManyLists != nil {
                owner.toManyLists![snapshot.index] = nil
            }
            if snapshot.wasChanged {
                context.graph.markListChanged(owner, snapshot.index)
            } else {
                owner.changedLists.remove(snapshot.index)
                if owner.changedLists.isEmpty { context.graph.listOwners[ObjectIdentifier(owner)] = nil }
            }
        }
        if context.graph.unreconciledLists.count > unreconciled {
            context.graph.unreconciledLists.removeLast(context.graph.unreconciledLists.count - unreconciled)
        }
        context.graph.generation &+= 1
        // New objects from before the journal, deleted and maybe inserted again since: they
        // stay, as they were (their temporary ID included), where those the journal made go.
        var revived = Set<ObjectIdentifier>()
        for (object, wasInserted, temporaryID) in deleted.reversed() {
            let state = context.identity.state(for: object.entity)
            if wasInserted {
                object.state = .inserted
                object.managedObjectContext = context
                if temporaryID < firstNewID {
                    object.temporaryID = temporaryID
                    revived.insert(ObjectIdentifier(object))
                }
            } else if object.state == .deleted {
                object.state = .persisted
                state.deleted[ObjectIdentifier(object)] = nil
                state.index(object, in: context)
            }
        }
        // A new object the journal made that became a stand-in goes too: kept by whoever its
        // `init(from:)` handed it to, it would still write to the object it stood in for.
        for object in inserted
        where object.managedObjectContext === context && !revived.contains(ObjectIdentifier(object)) {
            if object.state == .inserted {
                object.state = .transient
                object.managedObjectContext = nil
            } else if object.state == .standIn {
                context.resolver.detach(standIn: object, in: context.identity.state(for: object.entity))
            }
        }
        for snapshot in snapshots.values {
            let object = snapshot.object
            let state = context.identity.state(for: object.entity)
            if snapshot.wasInserted, object.state == .persisted, let rowID = object.rowID {
                if state.byRowID[rowID] === object { state.byRowID[rowID] = nil }
                object.rowID = nil
                object.state = .inserted
            }
            // Made a stand-in since (revived objects are `.inserted` already): its own again.
            if object.standIn != nil, !snapshot.wasStandIn { context.resolver.reinstate(object, in: state) }
            object.values = snapshot.values
            object.changedAttributes = snapshot.changedAttributes
            object.restatedAttributes = snapshot.restatedAttributes
            object.unloaded = snapshot.unloaded
            if !snapshot.wasUpdated { state.updated[ObjectIdentifier(object)] = nil }
            state.index(object, in: context)
        }
        // Not a new object a fetch had made a row's: it is new again (above).
        for object in registered where object.managedObjectContext === context && object.state != .inserted {
            let state = context.identity.state(for: object.entity)
            let id = ObjectIdentifier(object)
            if let rowID = object.rowID, state.byRowID[rowID] === object { state.byRowID[rowID] = nil }
            state.updated[id] = nil
            object.state = .transient
            object.managedObjectContext = nil
        }
    }
}
