/// The objects a context holds for stored rows, by `_pk`, without keeping them alive.
///
/// An object keeps its context (`ManagedObject.managedObjectContext` is strong), so that a
/// lazy read, a relationship or an attribute not loaded, always has a context to ask, however
/// the caller let go of the context (`let users = try ManagedObjectContext(c).fetch(…)`).
/// The context must then not keep its saved objects in turn, or neither would ever be freed:
/// it keeps them weakly, as Core Data's contexts do. Objects with unsaved changes are kept
/// strongly elsewhere (`EntityState.updated`, `deleted`, `inserted`) until saved or rolled
/// back.
struct RegisteredObjects {
    /// One registered object, not kept alive.
    struct Entry {
        weak var object: ManagedObject?
    }

    private var entries: [Int64: Entry] = [:]
    /// `entries.count` at which entries whose objects are gone are dropped next.
    private var purgeThreshold = RegisteredObjects.minimumPurgeThreshold

    static let minimumPurgeThreshold = 4_096

    /// The live object of `rowID`, if the context holds one.
    subscript(rowID: Int64) -> ManagedObject? {
        @inline(__always) get { entries[rowID]?.object }
        set {
            guard let newValue else {
                entries[rowID] = nil
                return
            }
            entries[rowID] = Entry(object: newValue)
            if entries.count >= purgeThreshold { purge() }
        }
    }

    /// How many rows have a live object.
    var count: Int { entries.values.reduce(0) { $0 + ($1.object == nil ? 0 : 1) } }

    /// The live objects.
    var objects: [ManagedObject] { entries.values.compactMap(\.object) }

    mutating func removeAll() {
        entries.removeAll()
        purgeThreshold = Self.minimumPurgeThreshold
    }

    mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// Drops the entries whose objects are gone; the next purge waits until the entries
    /// double again, so registering stays amortized O(1).
    ///
    /// The entries are looked at in place and only the gone ones removed: a filtered copy
    /// of the dictionary copied every weak reference, 860 instructions an object of a
    /// 20,000-object fetch (stash-bench under callgrind), when every object was still held.
    private mutating func purge() {
        var gone: [Int64] = []
        var position = entries.startIndex
        while position != entries.endIndex {
            if entries.values[position].object == nil { gone.append(entries.keys[position]) }
            entries.formIndex(after: &position)
        }
        for rowID in gone { entries[rowID] = nil }
        purgeThreshold = max(entries.count * 2, Self.minimumPurgeThreshold)
    }
}
