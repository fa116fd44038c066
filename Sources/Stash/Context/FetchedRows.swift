import Synchronization

/// The rows of an entity's last fetch of several objects, in the order it answered them: a
/// to-one relationship read on one of those objects, whose target is not loaded, loads the
/// targets of the objects fetched beside it, a window of `windowSize`, in one query
/// (`ObjectGraph.loadWindowTargets`). Reading them one object at a time made a query per
/// target: 500 for stash-bench's 20,000 essays, and a round trip each on PostgreSQL.
struct FetchedRows {
    /// How many objects, fetched one after another, a to-one read loads the targets of.
    static let windowSize = 100
    /// The fetch's number in the high half, as its objects carry it in `fetchPlace`
    /// (`number(for:)`); 0 for none.
    private(set) var number: UInt64 = 0
    /// The objects' row ids, by place; `Int64.min` for a new object, which has none.
    private(set) var rowIDs: [Int64] = []
    /// The windows, by relationship, whose targets were loaded: each is loaded once, so a
    /// window of targets let go is then read one at a time, as before.
    private var loaded: Set<Int> = []

    /// Numbers fetches across the process, not per context: an object that moved to another
    /// context cannot pass for one of that context's fetches. 0 is skipped as it wraps.
    private static let serials = Atomic<UInt32>(0)

    private static func nextSerial() -> UInt32 {
        let serial = serials.wrappingAdd(1, ordering: .relaxed).newValue
        return serial != 0 ? serial : serials.wrappingAdd(1, ordering: .relaxed).newValue
    }

    init() {}

    init(number: UInt64, rowIDs: [Int64]) {
        self.number = number
        self.rowIDs = rowIDs
    }

    /// A new fetch's number in the high half of a `fetchPlace`, for an entity with to-one
    /// relationships; 0 for one without.
    static func number(for entity: EntityDescription) -> UInt64 {
        guard entity.relationships.count != entity.toManyRelationships.count else { return 0 }
        return UInt64(nextSerial()) << 32
    }

    /// The row ids of the window holding the object at `place` (its `fetchPlace`), the
    /// first time it is asked for with the to-one `slot`; `nil` if the object is not of
    /// this fetch, or the window was loaded for `slot` before.
    mutating func window(around place: UInt64, slot: Int) -> ArraySlice<Int64>? {
        guard number != 0, place & ~0xFFFF_FFFF == number else { return nil }
        let position = Int(truncatingIfNeeded: place & 0xFFFF_FFFF)
        guard position < rowIDs.count else { return nil }
        let window = position / Self.windowSize
        guard loaded.insert(window &<< 20 | slot).inserted else { return nil }
        let start = window * Self.windowSize
        return rowIDs[start..<min(start + Self.windowSize, rowIDs.count)]
    }

    /// Gives back the window `window(around:slot:)` handed out for `place` and `slot`, whose
    /// load failed: the next read that misses loads it, rather than each read its own target.
    mutating func reopen(around place: UInt64, slot: Int) {
        guard number != 0, place & ~0xFFFF_FFFF == number else { return }
        let window = Int(truncatingIfNeeded: place & 0xFFFF_FFFF) / Self.windowSize
        loaded.remove(window &<< 20 | slot)
    }
}
