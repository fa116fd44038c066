/// A hash table from row ids to object addresses: what `RegisteredObjects` keeps.
///
/// `Dictionary<Int64, …>` hashes every key with SipHash (about 100 instructions an insert or
/// a remove, and the dictionary's own bookkeeping around it). Row ids are small, mostly dense
/// integers, fetched and freed in order: a row id's home is its low bits, so a fetch's
/// objects fill neighbouring places and one cache line serves four of them. Spread by a hash
/// (Fibonacci hashing), every look-up and removal was a cache miss: 38% of the graph fetch's
/// time went to this table (100,000 essays, `perf`), against 1.4% of its instructions.
///
/// The table probes linearly in Robin Hood order (along a run, entries sit in the order of
/// their homes), stays at most half full, and removes by shifting the run back up to an entry
/// at its home, so it keeps no tombstones and a dense run of ids costs nothing to search or
/// thin. Ids that pile onto one run (a stride of a power of two, a range wider than the table)
/// make probes long: once one passes `longestProbe` places, the table spreads its ids by
/// Fibonacci hashing from then on.
struct RowTable {
    private struct Entry {
        static var empty: Entry { Entry(rowID: 0, address: nil) }
        var rowID: Int64
        /// `nil`: an empty place.
        var address: UnsafeMutableRawPointer?
    }

    /// Where each id's probe starts.
    private struct Homes {
        /// The table's size minus one; the size is a power of two.
        let mask: Int
        /// How far to shift a Fibonacci hash right: 64 minus the number of bits of `mask`.
        let shift: UInt64
        /// Whether homes come from Fibonacci hashing rather than the ids' low bits.
        let spreads: Bool

        init(size: Int, spreads: Bool) {
            mask = size - 1
            shift = UInt64(64 - size.trailingZeroBitCount)
            self.spreads = spreads
        }

        @inline(__always)
        func of(_ rowID: Int64) -> Int {
            spreads
                ? Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> shift)
                : Int(truncatingIfNeeded: rowID) & mask
        }

        /// How many places past its home `rowID` sits at `index`.
        @inline(__always)
        func distance(_ rowID: Int64, at index: Int) -> Int {
            (index &- of(rowID)) & mask
        }
    }

    private var entries: ContiguousArray<Entry>
    private var homes: Homes
    private(set) var count = 0
    /// How many places a new entry's probe may pass before the table spreads its ids.
    static let longestProbe = 32

    /// An empty table of eight places; `reserveCapacity` makes room ahead.
    init() {
        let size = 8
        entries = ContiguousArray(repeating: .empty, count: size)
        homes = Homes(size: size, spreads: false)
    }

    /// How many entries the table holds room for before it grows.
    var capacity: Int { entries.count / 2 }

    /// Whether ids are spread by hashing (after a long probe), for tests.
    var spreadsIDs: Bool { homes.spreads }

    /// The place of `rowID`, if the table holds it.
    @inline(__always)
    private func index(of rowID: Int64) -> Int? {
        let homes = homes
        return entries.withUnsafeBufferPointer { places in
            var index = homes.of(rowID)
            var passed = 0
            while true {
                let entry = places[index]
                guard entry.address != nil else { return nil }
                if entry.rowID == rowID { return index }
                // An entry nearer its home than this probe: `rowID` would have taken its place.
                if homes.distance(entry.rowID, at: index) < passed { return nil }
                index = (index &+ 1) & homes.mask
                passed &+= 1
            }
        }
    }

    subscript(rowID: Int64) -> UnsafeMutableRawPointer? {
        guard let index = index(of: rowID) else { return nil }
        return entries[index].address
    }

    /// Sets the address of `rowID`.
    mutating func set(_ address: UnsafeMutableRawPointer, for rowID: Int64) {
        if let index = index(of: rowID) {
            entries[index].address = address
            return
        }
        if count + 1 > capacity { resize(to: entries.count * 2) }
        let homes = homes
        let leftOver = entries.withUnsafeMutableBufferPointer { places in
            Self.place(Entry(rowID: rowID, address: address), in: places, homes)
        }
        if let leftOver {
            // A probe ran long: every entry but `leftOver` is placed; spread them, then it.
            resize(to: entries.count, spreading: true)
            let homes = self.homes
            _ = entries.withUnsafeMutableBufferPointer { Self.place(leftOver, in: $0, homes) }
        }
        count += 1
    }

    /// Places `entry`, whose id `places` lacks, in Robin Hood order: it takes the place of
    /// the first entry nearer its home than it is, which moves on the same way. Answers the
    /// entry left unplaced when a probe passed `longestProbe` places and ids are not spread
    /// yet (the others are all placed), else nil.
    private static func place(_ entry: Entry, in places: UnsafeMutableBufferPointer<Entry>, _ homes: Homes) -> Entry? {
        var carried = entry
        var index = homes.of(carried.rowID)
        var passed = 0
        // Places walked in all. An entry displaced carries on at its own distance, which may
        // stay at 1 along a whole run (an id whose home is inside a dense run shifts all of
        // it on, and its removal all of it back): bounding the walk, not only the distance,
        // keeps every insert (and so, amortized, every removal's shift) within
        // `longestProbe` places before the table spreads.
        var walked = 0
        while true {
            let resident = places[index]
            guard resident.address != nil else {
                places[index] = carried
                return nil
            }
            let residentPassed = homes.distance(resident.rowID, at: index)
            if residentPassed < passed {
                places[index] = carried
                carried = resident
                passed = residentPassed
            }
            index = (index &+ 1) & homes.mask
            passed &+= 1
            walked &+= 1
            if walked > longestProbe && !homes.spreads { return carried }
        }
    }

    /// Removes `rowID`'s entry (if `only` is given, only when it holds that address); answers
    /// the address it held.
    @discardableResult
    mutating func remove(_ rowID: Int64, only: UnsafeMutableRawPointer? = nil) -> UnsafeMutableRawPointer? {
        guard let index = index(of: rowID), only == nil || entries[index].address == only else { return nil }
        let address = entries[index].address
        removeEntry(at: index)
        return address
    }

    /// Empties the place at `removed` and moves each later entry of its run back one place,
    /// up to an entry at its home (or an empty place): the run keeps its Robin Hood order.
    private mutating func removeEntry(at removed: Int) {
        let homes = homes
        entries.withUnsafeMutableBufferPointer { places in
            var hole = removed
            while true {
                let next = (hole &+ 1) & homes.mask
                let entry = places[next]
                guard entry.address != nil, homes.distance(entry.rowID, at: next) > 0 else { break }
                places[hole] = entry
                hole = next
            }
            places[hole] = .empty
        }
        count -= 1
    }

    /// Makes the table just big enough for what it holds.
    mutating func shrink() {
        var size = 8
        while size < count * 2 { size *= 2 }
        if size < entries.count { resize(to: size) }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        var size = entries.count
        while size < capacity * 2 { size *= 2 }
        if size > entries.count { resize(to: size) }
    }

    mutating func removeAll() {
        self = RowTable()
    }

    /// Places every entry again in a table of `size` places, spread if `spreading` (or if a
    /// probe runs long on the way). Through buffers, not the arrays' subscripts: their checks
    /// of bounds and of uniqueness on every write made a growing table cost about 80
    /// instructions an entry moved (stash-bench's graph fetch, callgrind).
    private mutating func resize(to size: Int, spreading: Bool = false) {
        let old = entries
        var spreads = spreading || homes.spreads
        while true {
            let homes = Homes(size: size, spreads: spreads)
            var grown = ContiguousArray(repeating: Entry.empty, count: size)
            let placedAll = grown.withUnsafeMutableBufferPointer { places in
                old.withUnsafeBufferPointer { moving in
                    for entry in moving where entry.address != nil {
                        if Self.place(entry, in: places, homes) != nil { return false }
                    }
                    return true
                }
            }
            if placedAll {
                entries = grown
                self.homes = homes
                return
            }
            spreads = true
        }
    }

    /// The entries, in no order.
    func forEachEntry(_ body: (Int64, UnsafeMutableRawPointer) throws -> Void) rethrows {
        for entry in entries {
            if let address = entry.address { try body(entry.rowID, address) }
        }
    }
}
