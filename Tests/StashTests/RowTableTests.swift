import TestProcesses
import Testing

@testable import Stash

/// `RowTable`, the row table's hash table: every operation checked against a `Dictionary`
/// doing the same, over keys that collide (dense, strided, negative, huge) and through
/// growth, removals that shift runs back, and shrinking.
@Suite struct RowTableTests {
    private func address(_ number: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: number * 16 + 16)!
    }

    private func check(_ table: RowTable, _ model: [Int64: UnsafeMutableRawPointer], probing keys: [Int64]) {
        #expect(table.count == model.count)
        for key in keys { #expect(table[key] == model[key], "row \(key)") }
        var listed: [Int64: UnsafeMutableRawPointer] = [:]
        table.forEachEntry { rowID, address in listed[rowID] = address }
        #expect(listed == model)
    }

    @Test(arguments: [
        "dense", "strided", "negative", "huge", "two ranges",
    ])
    func itAgreesWithADictionary(keys kind: String) throws {
        let keys: [Int64] =
            switch kind {
            case "dense": Array(1...3_000)
            case "strided": (0..<3_000).map { Int64($0) * 1_024 }
            case "negative": (0..<3_000).map { -Int64($0) * 7 }
            // Two dense runs whose low bits meet: each id's home lies in the other run.
            case "two ranges": Array(1...1_500) + Array((1 << 20)...((1 << 20) + 1_500))
            default: (0..<3_000).map { Int64.max - Int64($0) * 65_536 }
            }
        var table = RowTable()
        var model: [Int64: UnsafeMutableRawPointer] = [:]
        // Seeded, so that a failure can be replayed.
        var generator = SplitMix64(seed: 0x5EED_0000 &+ UInt64(kind.utf8.count))
        for round in 0..<20_000 {
            let key = keys.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                table.set(address(round), for: key)
                model[key] = address(round)
            case 5..<8:
                try #require(table.remove(key) == model.removeValue(forKey: key), "round \(round)")
            case 8:
                // Removing only a given address leaves another one in place.
                let other = address(round)
                try #require(table.remove(key, only: other) == nil, "round \(round)")
                if let held = model[key] {
                    try #require(table.remove(key, only: held) == held, "round \(round)")
                    model[key] = nil
                }
            default:
                if table.count * 2 < table.capacity { table.shrink() }
            }
            // Stops at the first round that differs, not thousands of failures after it.
            try #require(table.count == model.count, "round \(round)")
        }
        check(table, model, probing: keys)
        table.shrink()
        check(table, model, probing: keys)
        table.reserveCapacity(10_000)
        #expect(table.capacity >= 10_000)
        check(table, model, probing: keys)
        table.removeAll()
        check(table, [:], probing: keys)
    }

    /// Dense ids keep their low bits as homes (neighbours in memory); ids that pile onto one
    /// run make the table spread them, and it still answers for every one.
    @Test func itSpreadsIDsOnlyWhenAProbeRunsLong() {
        var dense = RowTable()
        for rowID in Int64(1)...5_000 { dense.set(address(Int(rowID)), for: rowID) }
        for rowID in Int64(1)...2_500 { dense.remove(rowID) }
        for rowID in Int64(5_001)...9_000 { dense.set(address(Int(rowID)), for: rowID) }
        #expect(!dense.spreadsIDs)
        #expect(dense.count == 6_500)
        #expect(dense[2_500] == nil)
        #expect(dense[2_501] == address(2_501))

        var strided = RowTable()
        let stride = Int64(1) << 32
        for step in Int64(0)..<100 { strided.set(address(Int(step)), for: step * stride) }
        #expect(strided.spreadsIDs)
        #expect(strided.count == 100)
        for step in Int64(0)..<100 { #expect(strided[step * stride] == address(Int(step))) }
        #expect(strided[stride / 2] == nil)
    }

    @Test func itStaysAtMostHalfFullAndShrinksToWhatItHolds() {
        var table = RowTable()
        for rowID in Int64(1)...1_000 { table.set(address(Int(rowID)), for: rowID) }
        #expect(table.count == 1_000)
        #expect(table.capacity >= 1_000)
        for rowID in Int64(1)...990 { table.remove(rowID) }
        table.shrink()
        #expect(table.capacity < 64)
        for rowID in Int64(991)...1_000 { #expect(table[rowID] == address(Int(rowID))) }
        #expect(table[5] == nil)
    }
}
