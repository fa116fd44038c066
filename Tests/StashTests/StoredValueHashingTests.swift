import Foundation
import Testing

@testable import Stash

/// `StoredValue` hashes an integer as `Int64` does and every other kind through its
/// `hash(into:)` (`_rawHashValue(seed:)`): a unique index keyed by it must still find each
/// value, and only that value, whatever its kind.
@Suite struct StoredValueHashingTests {
    /// Values of every kind, some whose bits or text look alike.
    private static func values(count: Int) -> [StoredValue] {
        var generator = SystemRandomNumberGenerator()
        var values: [StoredValue] = [.null, .integer(0), .real(0), .text(""), .blob([]), .text("0"), .real(-0.0)]
        for _ in 0..<count {
            let number = Int64.random(in: -1_000...1_000, using: &generator)
            values.append(.integer(number))
            values.append(.real(Double(number)))
            // The integer's bits as a (subnormal) double; never NaN, which equals nothing.
            values.append(.real(Double(bitPattern: number.magnitude)))
            values.append(.text(String(number)))
            values.append(.blob(withUnsafeBytes(of: number) { Array($0) }))
        }
        return values
    }

    @Test func aDictionaryKeyedByStoredValuesFindsEachKindApart() {
        let values = Self.values(count: 500)
        var index: [StoredValue: Int] = [:]
        for (position, value) in values.enumerated() where index[value] == nil { index[value] = position }
        var distinct = Set<StoredValue>()
        for value in values { distinct.insert(value) }
        #expect(index.count == distinct.count)
        for value in values {
            // Found by an equal value made anew (text in new storage), as the index is asked.
            let copy: StoredValue =
                switch value {
                case .text(let text): .text(String(decoding: Array(text.utf8), as: UTF8.self))
                default: value
                }
            let position = index[copy]
            #expect(position.map { values[$0] == value } == true, "\(value)")
        }
        #expect(index[.integer(1_000_001)] == nil)
        #expect(Set([StoredValue.integer(1), .real(1), .text("1")]).count == 3)
    }

    @Test func equalValuesHashAlikeUnderEverySeed() {
        // Equal, and made apart: zero and negative zero, text in storage of its own.
        var pairs: [(StoredValue, StoredValue)] = [(.real(0), .real(-0.0))]
        for value in Self.values(count: 50) {
            switch value {
            case .text(let text): pairs.append((value, .text(String(decoding: Array(text.utf8), as: UTF8.self))))
            case .blob(let bytes): pairs.append((value, .blob(Array(bytes))))
            default: pairs.append((value, value))
            }
        }
        for (value, other) in pairs {
            #expect(value == other)
            for seed in [0, 1, -1, 42, Int.max] {
                #expect(value._rawHashValue(seed: seed) == other._rawHashValue(seed: seed), "\(value)")
            }
        }
    }
}
