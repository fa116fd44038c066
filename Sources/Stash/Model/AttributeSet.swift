/// A small set of attribute positions (which are also column positions in the entity's
/// table): which attributes an object changed since its last save, or which columns a
/// write sets.
///
/// One word covers entities of up to 64 attributes with no allocation; larger ones spill
/// into an array.
package struct AttributeSet: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    package init() {}

    package var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    @inline(__always)
    package mutating func insert(_ position: Int) {
        if position < 64 {
            low |= 1 << UInt64(position)
        } else {
            let word = position / 64 - 1
            while high.count <= word { high.append(0) }
            high[word] |= 1 << UInt64(position % 64)
        }
    }

    @inline(__always)
    package mutating func remove(_ position: Int) {
        if position < 64 {
            low &= ~(1 << UInt64(position))
        } else if position / 64 - 1 < high.count {
            high[position / 64 - 1] &= ~(1 << UInt64(position % 64))
        }
    }

    @inline(__always)
    package func contains(_ position: Int) -> Bool {
        if position < 64 { return low & (1 << UInt64(position)) != 0 }
        let word = position / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(position % 64)) != 0
    }

    package mutating func removeAll() {
        low = 0
        high = []
    }

    /// How many positions are in the set.
    package var count: Int {
        high.reduce(low.nonzeroBitCount) { $0 + $1.nonzeroBitCount }
    }

    /// The positions below `limit` that are in the set, in ascending order.
    package func positions(below limit: Int) -> [Int] {
        (0..<limit).filter(contains)
    }

    package static func all(_ count: Int) -> AttributeSet {
        var set = AttributeSet()
        for position in 0..<count { set.insert(position) }
        return set
    }

    /// The positions in both `self` and `other`.
    package func intersection(_ other: AttributeSet) -> AttributeSet {
        var result = AttributeSet()
        result.low = low & other.low
        if !high.isEmpty && !other.high.isEmpty { result.high = zip(high, other.high).map { $0 & $1 } }
        return result
    }

    /// The positions in `self` but not in `other`.
    package func subtracting(_ other: AttributeSet) -> AttributeSet {
        var result = self
        result.low &= ~other.low
        for (index, word) in other.high.enumerated() where index < result.high.count {
            result.high[index] &= ~word
        }
        return result
    }

    /// The positions in `self` or in `other`.
    package func union(_ other: AttributeSet) -> AttributeSet {
        var result = self
        result.low |= other.low
        for (index, word) in other.high.enumerated() {
            while result.high.count <= index { result.high.append(0) }
            result.high[index] |= word
        }
        return result
    }
}
