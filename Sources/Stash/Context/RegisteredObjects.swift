import CStashRuntime
import Synchronization

/// The objects a context holds for stored rows, by `_pk`, without keeping them alive.
///
/// An object keeps its context (`ManagedObject.managedObjectContext` is strong), so that a
/// lazy read, a relationship or an attribute not loaded, always has a context to ask, however
/// the caller let go of the context (`let users = try ManagedObjectContext(c).fetch(…)`).
/// The context must then not keep its saved objects in turn, or neither would ever be freed:
/// it keeps them without a count, as Core Data's contexts do. Objects with unsaved changes are
/// kept strongly elsewhere (`EntityState.updated`, `deleted`, `inserted`) until saved or
/// rolled back.
///
/// Not with `weak` references: a weak reference gives its object a side table, and every
/// retain and release of that object afterwards takes the runtime's slow path. Instead the
/// table holds plain addresses, an object takes its own entry out as it is deinitialized
/// (`ManagedObject.deinit`, through `registration`), and a look-up takes a strong reference
/// only with `swift_tryRetain`, which refuses an object whose deinitialization has begun.
/// The lock is for that deinit, which runs wherever the last reference went: possibly on
/// another thread while the context reads the table (an object `sending` into a task).
final class RegisteredObjects: @unchecked Sendable {
    // Unchecked Sendable: `entries` is touched only under `lock`, and the addresses in it
    // are turned into references only by `swift_tryRetain`. The table replaced weak
    // references, which cost 45M of 390M instructions in a 20,000-essay graph fetch
    // (stash-bench under callgrind: side tables, slow-path retains and releases).
    // Unchecked exclusivity too: `entries` and `peak` are touched only inside `withLock`, which
    // makes each access exclusive already; the runtime's checks cost about 195 instructions per
    // freed object (3.9M of 63.5M to let go of 20,000 fetched objects, stash-bench --store
    // postgres under callgrind).
    @exclusivity(unchecked) private var entries = RowTable()
    private let lock = Atomic<Bool>(false)
    /// The most entries since the table was last compacted: when freed objects leave it at a
    /// quarter of that, `departures` is raised.
    @exclusivity(unchecked) private var peak = 0
    /// Below this many entries at the peak, what departed objects leave is not worth a pass.
    static let compactionFloor = 1024
    private let departures: DepartureSignal

    init(departures: DepartureSignal) {
        self.departures = departures
    }

    /// The live object of `rowID`, if the context holds one.
    subscript(rowID: Int64) -> ManagedObject? {
        get {
            withLock {
                guard let address = entries[rowID], swift_tryRetain(address) != nil else { return nil }
                return Unmanaged<ManagedObject>.fromOpaque(address).takeRetainedValue()
            }
        }
        set {
            guard let newValue else {
                // An object being deinitialized is left alone: its deinit finds no entry.
                let object = withLock { () -> ManagedObject? in
                    guard let address = entries.remove(rowID), swift_tryRetain(address) != nil else {
                        return nil
                    }
                    return Unmanaged<ManagedObject>.fromOpaque(address).takeRetainedValue()
                }
                if let object, object.registration === self { object.registration = nil }
                return
            }
            // An object has one entry at most: one it has elsewhere (another row, another
            // context's table) goes first, or it would be left behind when the object is freed.
            if let previous = newValue.registration, previous !== self || newValue.registeredRowID != rowID {
                previous.forget(newValue)
            }
            withLock {
                entries.set(Unmanaged.passUnretained(newValue).toOpaque(), for: rowID)
                if entries.count > peak { peak = entries.count }
            }
            newValue.registration = self
            newValue.registeredRowID = rowID
        }
    }

    /// Takes out `object`'s entry, if the table still has it: called as the object is
    /// deinitialized, on whatever thread released it last, and when it moves elsewhere.
    /// A deinit leaves the object's `registration` as it is (`clearing: false`): the object's
    /// fields are destroyed next anyway, so clearing it there only added a store and a
    /// release of nil.
    func forget(_ object: ManagedObject, clearing: Bool = true) {
        let address = Unmanaged.passUnretained(object).toOpaque()
        let rowID = object.registeredRowID
        let thinned = withLock { () -> Bool in
            // Only its own entry: another object may hold the row now.
            entries.remove(rowID, only: address)
            guard peak >= Self.compactionFloor, entries.count * 4 <= peak else { return false }
            peak = entries.count
            return true
        }
        if thinned { departures.raise() }
        // Only if it is still this table's: an object that moved on may be another's by now.
        if clearing, object.registration === self { object.registration = nil }
    }

    /// Whether an object is registered for `rowID`, alive or being freed.
    func contains(_ rowID: Int64) -> Bool {
        withLock { entries[rowID] != nil }
    }

    /// Gives back the table's capacity beyond twice what it holds (a dictionary keeps its
    /// storage as entries leave).
    func compact() {
        withLock {
            if entries.count * 2 < entries.capacity { entries.shrink() }
            peak = entries.count
        }
    }

    /// The rows registered (alive or being freed), taken under one lock: for a pass over
    /// many entries, where `contains` would take the lock once each.
    var rowIDs: Set<Int64> {
        withLock {
            var rowIDs = Set<Int64>(minimumCapacity: entries.count)
            entries.forEachEntry { rowID, _ in rowIDs.insert(rowID) }
            return rowIDs
        }
    }

    /// How many rows have a live object.
    var count: Int { withLock { entries.count } }

    /// The live objects.
    var objects: [ManagedObject] {
        withLock {
            var objects: [ManagedObject] = []
            entries.forEachEntry { _, address in
                if swift_tryRetain(address) != nil {
                    objects.append(Unmanaged<ManagedObject>.fromOpaque(address).takeRetainedValue())
                }
            }
            return objects
        }
    }

    func removeAll() {
        for object in objects where object.registration === self { object.registration = nil }
        withLock { entries.removeAll() }
    }

    func reserveCapacity(_ capacity: Int) {
        withLock { entries.reserveCapacity(capacity) }
    }

    /// A spin lock: held for one hash-table operation, and contended only by a deinit on
    /// another thread; a mutex cost about 100 instructions more per look-up.
    private func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        while !lock.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { lock.store(false, ordering: .releasing) }
        return try body()
    }
}

/// A weak reference to an object, for the rare entries that must not keep a new object of
/// another context alive (`UniqueEntry.unsaved`).
struct WeakObject {
    weak var object: ManagedObject?
}
