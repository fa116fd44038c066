/// What a context knows about one entity: its registered objects, its unique index and
/// its unsaved changes. Only ever used under the context's lock.
///
/// The collections every decode, edit and save touches skip the runtime's exclusivity
/// checks: they are reached only from the context's isolation (see `Confinement`), and the
/// checks cost about 85 instructions an access (see `ManagedObject.state` for the figure).
final class EntityState {
    let entity: EntityDescription
    /// The context this state belongs to: an object is live in it only while it says so.
    @exclusivity(unchecked) unowned var context: ManagedObjectContext?
    /// Every object of the entity that has a row, by `_pk`: one instance per row, while
    /// anyone holds it (see `RegisteredObjects`).
    let byRowID: RegisteredObjects
    /// The context's stand-ins (`UniqueResolver.standIn`), by temporary ID, without keeping
    /// them alive: one made before the last save is in no other table, and `reset()` must
    /// still take it out of the context.
    let standIns: RegisteredObjects
    /// For each unique attribute (in `entity.uniqueAttributes` order), the object that
    /// holds each value. Entries can go stale (a value changed, an object left); `lookup`
    /// checks an entry before trusting it, so nothing has to be removed eagerly.
    @exclusivity(unchecked) var uniqueIndexes: [[StoredValue: UniqueEntry]]
    /// Rows whose objects were loaded and are not yet in `uniqueIndexes`: a fetch only
    /// lists them here, and the first lookup indexes them, so fetching pays for the unique
    /// index only if something is decoded into the context afterwards.
    @exclusivity(unchecked) var unindexed: [Int64] = []
    /// Objects inserted since the last save, in insertion order. An object deleted before
    /// it was saved, or since moved to another context, stays here and is skipped (see
    /// `isLive`): the queue belongs to the context, not to the object.
    @exclusivity(unchecked) private(set) var inserted: [ManagedObject] = []
    /// Which objects `inserted` lists, so none is listed, and so written, twice.
    @exclusivity(unchecked) private var queued = Set<ObjectIdentifier>()
    /// Where the unique indexes hold a `queued` entry, to be named by row (or dropped) when
    /// the queue empties (`clearInserted`).
    @exclusivity(unchecked) private var queuedKeys: [(Int, StoredValue)] = []
    private var queuedCompositeKeys: [(Int, CompositeKey)] = []
    /// Saved objects with unsaved changes, and their values as last saved.
    @exclusivity(unchecked) var updated: [ObjectIdentifier: SavedState] = [:]
    /// Rows whose objects have attributes not loaded yet (`ManagedObject.unloaded`), loaded
    /// together the first time one is needed.
    /// Entries can go stale (loaded since, deleted, let go, gone with a reset): `FaultLoader.fulfill`
    /// skips and drops them. A list, not a set: an import adds one per object, and
    /// appending is cheap.
    @exclusivity(unchecked) var partial: [Int64] = []
    /// For each unique attribute, which stored row holds which value: what decoding asks
    /// when the context has no object for a value.
    let storedKeys: [StoredKeyIndex]
    /// Saved objects deleted since the last save.
    @exclusivity(unchecked) var deleted: [ObjectIdentifier: ManagedObject] = [:]
    /// The rows of the entity's last fetch of several objects, for a to-one read on one of
    /// them to load its neighbours' targets too (`FetchedRows`).
    var lastFetch = FetchedRows()
    /// Set when an object took a unique value another live object holds (the hand-written
    /// `init(from:)` does this): the next save merges the two.
    var mayHoldDuplicates = false
    /// Set once an object of the entity was inserted with a `UniqueMatch` of its own: from
    /// then on each save asks the store about such objects again (`resolveExplicitMatches`).
    var hasExplicitMatches = false
    /// The columns of each composite unique constraint (`CompositeUniqueModel`).
    let compositeUniques: [[Int]]
    /// For each composite unique constraint, the object that holds each key, as
    /// `uniqueIndexes` does for one attribute; entries are checked before they are trusted.
    var compositeIndexes: [[CompositeKey: UniqueEntry]]

    init(entity: EntityDescription, departures: DepartureSignal) {
        self.entity = entity
        byRowID = RegisteredObjects(departures: departures)
        standIns = RegisteredObjects(departures: departures)
        // Resolved when the container was made, which would have failed on an error.
        compositeUniques = (try? entity.compositeUniques()) ?? []
        compositeIndexes = compositeUniques.map { _ in [:] }
        uniqueIndexes = Array(repeating: [:], count: entity.uniqueAttributes.count)
        storedKeys = entity.uniqueAttributes.map { _ in StoredKeyIndex() }
    }

    /// `true` if `object` is a new object of this state's context.
    @inline(__always)
    func isLive(_ object: ManagedObject) -> Bool {
        object.state == .inserted && object.managedObjectContext === context
    }

    var liveInserted: [ManagedObject] { inserted.filter(isLive) }

    /// Whether a save has anything to write or compare: restated values included.
    var hasPendingWrites: Bool {
        !updated.isEmpty || !deleted.isEmpty || inserted.contains(where: isLive)
    }

    /// Whether the context changed anything: restated values are no change.
    var hasChanges: Bool {
        !deleted.isEmpty || inserted.contains(where: isLive)
            || updated.values.contains { !$0.object.changedAttributes.isEmpty || !$0.object.changedLists.isEmpty }
    }

    /// Makes room for `count` more new objects in the unique indexes and the insert queue: an
    /// import that knows how many objects its array holds grows them once, rather than by
    /// doubling and rehashing every entry each time (about 620 instructions an object of
    /// stash-bench's import under callgrind).
    func reserveForNewObjects(_ count: Int) {
        for index in uniqueIndexes.indices {
            uniqueIndexes[index].reserveCapacity(uniqueIndexes[index].count + count)
        }
        queued.reserveCapacity(queued.count + count)
        // Grown by at least double, not to the exact size: arrays decoded one after another
        // into one unsaved context (pages) would each copy the whole list again.
        let needed = inserted.count + count
        if inserted.capacity < needed { inserted.reserveCapacity(max(needed, inserted.capacity * 2)) }
    }

    /// Lists a new object for the next save, once.
    func enqueueInsert(_ object: ManagedObject) {
        if queued.insert(ObjectIdentifier(object)).inserted {
            inserted.append(object)
        }
    }

    /// Empties the insert queue, after a save or a rollback. The unique indexes' entries for
    /// the queue's objects name their rows from now on (those saved are registered by now),
    /// and those of objects that left are dropped: nothing but the queue may hold an object
    /// strongly (see `UniqueEntry.queued`).
    func clearInserted() {
        if !queuedKeys.isEmpty { nameQueuedEntries(&uniqueIndexes, at: queuedKeys) }
        if !queuedCompositeKeys.isEmpty { nameQueuedEntries(&compositeIndexes, at: queuedCompositeKeys) }
        queuedKeys = []
        queuedCompositeKeys = []
        inserted.removeAll()
        queued.removeAll()
    }

    /// Turns the `queued` entries of `indexes` into `.row` entries, or drops them. A few among
    /// many are found by key; more are found by looking at every entry in place, which
    /// hashes nothing (finding each by key cost 1.5k instructions an object of a
    /// 20,000-object import, stash-bench under callgrind).
    private func nameQueuedEntries<Key>(_ indexes: inout [[Key: UniqueEntry]], at keys: [(Int, Key)]) {
        var taken = indexes
        indexes = []  // so that `taken` is the only reference, changed in place
        defer { indexes = taken }
        if keys.count * 4 < taken.reduce(0, { $0 + $1.count }) {
            for (index, key) in keys {
                guard let position = taken[index].index(forKey: key),
                    case .queued(let object) = taken[index].values[position]
                else { continue }
                if let entry = rowEntry(object) {
                    taken[index].values[position] = entry
                } else {
                    taken[index].remove(at: position)
                }
            }
            return
        }
        for index in taken.indices {
            var gone: [Key] = []
            // Stepped by hand, so that nothing holds a copy of the dictionary being changed.
            var position = taken[index].values.startIndex
            while position != taken[index].values.endIndex {
                if case .queued(let object) = taken[index].values[position] {
                    if let entry = rowEntry(object) {
                        taken[index].values[position] = entry
                    } else {
                        gone.append(taken[index].keys[position])
                    }
                }
                taken[index].values.formIndex(after: &position)
            }
            for key in gone { taken[index][key] = nil }
        }
    }

    /// `.row` for an object the save just wrote (registered as its row's by `apply`); `nil`
    /// for one that left (rolled back, deleted before it was saved, moved to another context).
    private func rowEntry(_ object: ManagedObject) -> UniqueEntry? {
        guard object.state == .persisted, let rowID = object.rowID, object.managedObjectContext === context else {
            return nil
        }
        return .row(rowID)
    }

    /// The live object of this context whose `attribute` (the `index`th unique one) holds
    /// `key`, if any.
    func lookup(_ index: Int, _ key: StoredValue, in context: ManagedObjectContext) -> ManagedObject? {
        if !unindexed.isEmpty { indexLoadedObjects(in: context) }
        guard let entry = uniqueIndexes[index][key] else { return nil }
        let found: ManagedObject?
        switch entry {
        case .queued(let object): found = object
        case .unsaved(let entry): found = entry.object
        case .row(let rowID): found = byRowID[rowID]
        }
        guard let object = found, object.managedObjectContext === context,
            object.state == .inserted || object.state == .persisted,
            !object.rowIsGone, let value = object.value(of: entity.uniqueAttributes[index]),
            (try? entity.uniqueAttributes[index].codec.storedValue(for: value)) == key
        else {
            uniqueIndexes[index][key] = nil
            return nil
        }
        return object
    }

    /// Records the object's current unique values. An entry held by another live object
    /// is kept: the duplicate is merged into it at the next save.
    func index(_ object: ManagedObject, in context: ManagedObjectContext) {
        if !unindexed.isEmpty { indexLoadedObjects(in: context) }
        for index in entity.uniqueAttributes.indices {
            guard let key = uniqueKey(of: object, index) else { continue }
            if setEntryIfFree(object, index, key) { continue }
            if let holder = lookup(index, key, in: context), holder !== object {
                mayHoldDuplicates = true
                continue
            }
            setEntry(object, index, key)
        }
    }

    /// Indexes the objects fetches loaded since the last lookup.
    private func indexLoadedObjects(in context: ManagedObjectContext) {
        let loaded = unindexed
        unindexed = []
        for rowID in loaded {
            guard let object = byRowID[rowID], object.managedObjectContext === context else { continue }
            index(object, in: context)
        }
    }

    /// Makes `object` the holder of `key` in the `index`th unique index.
    func setEntry(_ object: ManagedObject, _ index: Int, _ key: StoredValue) {
        let entry = entry(naming: object)
        uniqueIndexes[index][key] = entry
        if case .queued = entry { queuedKeys.append((index, key)) }
    }

    /// `setEntry` if no entry holds `key` yet, in one look-up of the key: asking first and
    /// then setting hashed it twice (about 330 instructions a new object of an import, callgrind).
    /// Whether it did.
    @discardableResult
    func setEntryIfFree(_ object: ManagedObject, _ index: Int, _ key: StoredValue) -> Bool {
        // Made before, and told inserted by the count: a default that recorded its own use
        // was a captured variable, checked at each access, and copied as an optional (600
        // instructions a new object of stash-bench's graph import under callgrind). Not an
        // entry that holds the object weakly, made only once the key is known free: a weak
        // reference gives the object a side table for good.
        guard let entry = entry(naming: object, weakly: false) else {
            guard uniqueIndexes[index][key] == nil else { return false }
            setEntry(object, index, key)
            return true
        }
        let count = uniqueIndexes[index].count
        // The subscript with a default inserts it only where the key has no entry.
        Self.touch(&uniqueIndexes[index][key, default: entry])
        guard uniqueIndexes[index].count != count else { return false }
        if case .queued = entry { queuedKeys.append((index, key)) }
        return true
    }

    @inline(__always)
    private static func touch(_ entry: inout UniqueEntry) {}

    /// Makes `object` the holder of `key` of the `constraint`th composite unique constraint.
    func setCompositeEntry(_ object: ManagedObject, _ constraint: Int, _ key: CompositeKey) {
        let entry = entry(naming: object)
        compositeIndexes[constraint][key] = entry
        if case .queued = entry { queuedCompositeKeys.append((constraint, key)) }
    }

    /// How an index names `object`: by its row once registered, as itself while it waits in
    /// the insert queue, weakly otherwise.
    private func entry(naming object: ManagedObject) -> UniqueEntry {
        entry(naming: object, weakly: true)!
    }

    /// `entry(naming:)`, or `nil` where it would hold the object weakly and `weakly` is false.
    private func entry(naming object: ManagedObject, weakly: Bool) -> UniqueEntry? {
        if let rowID = object.rowID, byRowID[rowID] === object { return .row(rowID) }
        // A live new object of this context is in the queue: `register` queues it, and
        // whatever makes it live again (an undone delete or merge) finds it still queued.
        if object.state == .inserted, object.managedObjectContext === context { return .queued(object) }
        return weakly ? .unsaved(.init(object: object)) : nil
    }

    /// Drops what the context kept for objects that have since been freed: unique index
    /// entries naming them, stale rows of `partial` and `unindexed`, and the row table's
    /// spare capacity. None of it is needed (a look-up of a freed object's row or value asks
    /// the store, as for any row not loaded); after a 100,000-object import whose results
    /// the app let go, it was about 17 MB (stash-bench's memory run).
    func releaseDeparted() {
        byRowID.compact()
        standIns.compact()
        // The registered rows once, under one lock, not the lock once per entry.
        let live = byRowID.rowIDs
        for index in uniqueIndexes.indices where !uniqueIndexes[index].isEmpty {
            uniqueIndexes[index] = uniqueIndexes[index].filter { Self.isHeld($0.value, live) }
        }
        for index in compositeIndexes.indices where !compositeIndexes[index].isEmpty {
            compositeIndexes[index] = compositeIndexes[index].filter { Self.isHeld($0.value, live) }
        }
        if !partial.isEmpty { partial = partial.filter(live.contains) }
        if !unindexed.isEmpty { unindexed = unindexed.filter(live.contains) }
    }

    /// Whether the object an index entry names may still be alive, `live` being the rows
    /// registered.
    private static func isHeld(_ entry: UniqueEntry, _ live: Set<Int64>) -> Bool {
        switch entry {
        case .queued: true
        case .unsaved(let weak): weak.object != nil
        case .row(let rowID): live.contains(rowID)
        }
    }

    // MARK: Registering

    /// Registers the object of a stored row.
    @inline(__always)
    func register(_ object: ManagedObject, rowID: Int64) {
        byRowID[rowID] = object
    }

    /// The unique key of `object` for the `index`th unique attribute, if it has a value.
    /// `nil` (NULL) is no key: like SQLite's unique indexes, any number of objects may
    /// have none.
    func uniqueKey(of object: ManagedObject, _ index: Int) -> StoredValue? {
        let attribute = entity.uniqueAttributes[index]
        guard let value = object.value(of: attribute), let key = try? attribute.codec.storedValue(for: value),
            key != .null
        else { return nil }
        return key
    }
}

/// An entry of a unique index: a new object itself, or a stored one by its row (the object
/// is `byRowID[rowID]` while anyone holds it).
enum UniqueEntry {
    /// A new object waiting in its state's insert queue, held as the queue holds it, until
    /// the queue empties and the entry names the object's row or goes (`clearInserted`).
    /// Not weakly: a weak reference gives the object a side table, and every retain and
    /// release of it after that takes the runtime's slow path, 2.4k instructions an object
    /// in a 20,000-object import's save alone (stash-bench under callgrind).
    case queued(ManagedObject)
    /// Another new object (not this context's, or not live), not kept alive by the index.
    case unsaved(WeakObject)
    case row(Int64)
}

/// A changed saved object's values as of its last save (or as loaded), kept as it changes so
/// `rollback()` can put them back.
struct SavedState {
    let object: ManagedObject
    /// The values before this context's changes (see `SavedValues`). For an object decoded
    /// for a row it never loaded, what it was given is kept as unset: rollback unsets it, and
    /// it is read from the row again (it is in `unloaded`).
    var values = SavedValues()
    /// Attributes not loaded at the first change: rollback makes them unloaded again.
    var unloaded: AttributeSet
    /// Changed attributes whose stored value was never seen, so not known to differ from the
    /// row: the save compares them with the row inside its transaction and writes those that
    /// differ (`RowWrites.checkedSets`), as it does restated ones.
    var unverified = AttributeSet()
    /// Changed attributes whose row another save changed while `.fail` kept this context's
    /// value (and the value it saw, for the save's check): a rollback makes them not loaded,
    /// so they read what the row holds now, not the value from before that save.
    var movedUnder = AttributeSet()

    /// The row was seen to hold `value` at `slot` (a merge, a fault): for a slot this context
    /// changed, what a rollback puts back and a save expects, no longer to be compared with
    /// the row; for another, what a kept value becomes. Either way the slot is loaded.
    mutating func rowHolds(_ value: Any?, atSlot slot: Int, changedHere: Bool) {
        if changedHere {
            values.set(value, atSlot: slot)
            unverified.remove(slot)
        } else {
            values.replaceKept(with: value, atSlot: slot)
        }
        unloaded.remove(slot)
    }
}
