/// A hash table from row ids to object addresses: what `RegisteredObjects` keeps.
///
/// `Dictionary<Int64, …>` hashes every key with SipHash (about 100 instructions an insert or
/// a remove, and the dictionary's own bookkeeping around it). Row ids are small, mostly dense
/// integers, so one multiplication spreads them well enough (Fibonacci hashing); the table
/// probes linearly, stays at most half full, and removes by shifting the run back, so it
/// never keeps tombstones.
struct RowTable {
    private struct Entry {
        var rowID: Int64
        /// `nil`: an empty place.
        var address: UnsafeMutableRawPointer?
    }

    private var entries: ContiguousArray<Entry>
    /// `entries.count - 1`; `entries.count` is a power of two.
    private var mask: Int
    /// How far to shift the hash right: 64 minus the number of bits of `mask`.
    private var shift: UInt64
    private(set) var count = 0

    /// An empty table of eight places; `reserveCapacity` makes room ahead.
    init() {
        let size = 8
        entries = ContiguousArray(repeating: Entry(rowID: 0, address: nil), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    /// How many entries the table holds room for before it grows.
    var capacity: Int { entries.count / 2 }

    @inline(__always)
    private func home(of rowID: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The place of `rowID`, or of the empty place where it would go.
    @inline(__always)
    private func place(of rowID: Int64) -> (index: Int, found: Bool) {
        var index = home(of: rowID)
        while true {
            let entry = entries[index]
            guard entry.address != nil else { return (index, false) }
            if entry.rowID == rowID { return (index, true) }
            index = (index &+ 1) & mask
        }
    }

    subscript(rowID: Int64) -> UnsafeMutableRawPointer? {
        let (index, found) = place(of: rowID)
        return found ? entries[index].address : nil
    }

    /// Sets the address of `rowID`.
    mutating func set(_ address: UnsafeMutableRawPointer, for rowID: Int64) {
        var (index, found) = place(of: rowID)
        if !found {
            if count + 1 > capacity {
                resize(to: entries.count * 2)
                index = place(of: rowID).index
            }
            count += 1
        }
        entries[index] = Entry(rowID: rowID, address: address)
    }

    /// Removes `rowID`'s entry (if `only` is given, only when it holds that address); answers
    /// the address it held.
    @discardableResult
    mutating func remove(_ rowID: Int64, only: UnsafeMutableRawPointer? = nil) -> UnsafeMutableRawPointer? {
        let (index, found) = place(of: rowID)
        guard found, only == nil || entries[index].address == only else { return nil }
        let address = entries[index].address
        removeEntry(at: index)
        return address
    }

    /// Empties the place at `index` and moves back each later entry of its run that may sit
    /// there, so that every entry stays reachable from its home.
    private mutating func removeEntry(at removed: Int) {
        var hole = removed
        var index = removed
        while true {
            index = (index &+ 1) & mask
            guard entries[index].address != nil else { break }
            let home = home(of: entries[index].rowID)
            // Whether `home` lies cyclically in (hole, index]: then the entry stays.
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if !stays {
                entries[hole] = entries[index]
                hole = index
            }
        }
        entries[hole] = Entry(rowID: 0, address: nil)
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

    /// Through buffers, not the arrays' subscripts: their checks of bounds and of uniqueness
    /// on every write made a growing table cost about 80 instructions an entry moved
    /// (stash-bench's graph fetch, callgrind).
    private mutating func resize(to size: Int) {
        let old = entries
        var grown = ContiguousArray(repeating: Entry(rowID: 0, address: nil), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = mask
        grown.withUnsafeMutableBufferPointer { places in
            old.withUnsafeBufferPointer { moving in
                for entry in moving where entry.address != nil {
                    var index = home(of: entry.rowID)
                    while places[index].address != nil { index = (index &+ 1) & mask }
                    places[index] = entry
                }
            }
        }
        entries = grown
    }

    /// The entries, in no order.
    func forEachEntry(_ body: (Int64, UnsafeMutableRawPointer) throws -> Void) rethrows {
        for entry in entries {
            if let address = entry.address { try body(entry.rowID, address) }
        }
    }
}
