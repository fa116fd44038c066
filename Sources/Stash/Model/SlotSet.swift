/// A small set of attribute slots: which attributes changed since the last save.
///
/// One word covers entities of up to 64 attributes with no allocation; larger ones
/// spill into an array.
struct SlotSet: Hashable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    @inline(__always)
    mutating func insert(_ slot: Int) {
        if slot < 64 {
            low |= 1 << UInt64(slot)
        } else {
            let word = slot / 64 - 1
            while high.count <= word { high.append(0) }
            high[word] |= 1 << UInt64(slot % 64)
        }
    }

    @inline(__always)
    mutating func remove(_ slot: Int) {
        if slot < 64 {
            low &= ~(1 << UInt64(slot))
        } else if slot / 64 - 1 < high.count {
            high[slot / 64 - 1] &= ~(1 << UInt64(slot % 64))
        }
    }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    mutating func removeAll() {
        low = 0
        high = []
    }
}
