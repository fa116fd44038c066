/// A small set of attribute positions (which are also column positions in the entity's
/// table): which attributes an object changed since its last save, or which columns a
/// write sets.
///
/// One word covers entities of up to 64 attributes with no allocation; larger ones spill
/// into an array.
package struct AttributeSet: Hashable, Sendable {
    private var low: UInt64 = 0
    /// The words past the first, for entities of more than 64 attributes; `nil` for the rest:
    /// an object keeps three sets, and an empty array is a reference each copy retains and
    /// each object's deinit releases (about 40 instructions an object let go of in
    /// stash-bench's graph fetch, callgrind).
    private var high: [UInt64]?

    package init() {}

    package var isEmpty: Bool { low == 0 && (high?.allSatisfy { $0 == 0 } ?? true) }

    @inline(__always)
    package mutating func insert(_ position: Int) {
        if position < 64 {
            low |= 1 << UInt64(position)
        } else {
            let word = position / 64 - 1
            if high == nil { high = [] }
            while high!.count <= word { high!.append(0) }
            high![word] |= 1 << UInt64(position % 64)
        }
    }

    @inline(__always)
    package mutating func remove(_ position: Int) {
        if position < 64 {
            low &= ~(1 << UInt64(position))
        } else if let count = high?.count, position / 64 - 1 < count {
            high![position / 64 - 1] &= ~(1 << UInt64(position % 64))
        }
    }

    @inline(__always)
    package func contains(_ position: Int) -> Bool {
        if position < 64 { return low & (1 << UInt64(position)) != 0 }
        guard let high else { return false }
        let word = position / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(position % 64)) != 0
    }

    package mutating func removeAll() {
        low = 0
        high = nil
    }

    /// The `index`th word past the first; 0 past the last one kept.
    private func highWord(_ index: Int) -> UInt64 {
        guard let high, index < high.count else { return 0 }
        return high[index]
    }

    /// How many words past the first hold a position.
    private var highWordsInUse: Int {
        guard let high, let last = high.lastIndex(where: { $0 != 0 }) else { return 0 }
        return last + 1
    }

    /// Equal when they hold the same positions, whatever words they keep.
    package static func == (left: AttributeSet, right: AttributeSet) -> Bool {
        guard left.low == right.low else { return false }
        let words = max(left.highWordsInUse, right.highWordsInUse)
        return (0..<words).allSatisfy { left.highWord($0) == right.highWord($0) }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(low)
        for index in 0..<highWordsInUse { hasher.combine(highWord(index)) }
    }

    /// How many positions are in the set.
    package var count: Int {
        (high ?? []).reduce(low.nonzeroBitCount) { $0 + $1.nonzeroBitCount }
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
        if let high, let otherHigh = other.high { result.high = zip(high, otherHigh).map { $0 & $1 } }
        return result
    }

    /// The positions in `self` but not in `other`.
    package func subtracting(_ other: AttributeSet) -> AttributeSet {
        var result = self
        result.low &= ~other.low
        if let otherHigh = other.high, let count = result.high?.count {
            for (index, word) in otherHigh.enumerated() where index < count {
                result.high![index] &= ~word
            }
        }
        return result
    }

    /// The positions in `self` or in `other`.
    package func union(_ other: AttributeSet) -> AttributeSet {
        var result = self
        result.low |= other.low
        if let otherHigh = other.high {
            if result.high == nil { result.high = [] }
            for (index, word) in otherHigh.enumerated() {
                while result.high!.count <= index { result.high!.append(0) }
                result.high![index] |= word
            }
        }
        return result
    }
}
