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

    // MARK: Review: property tests over more key patterns, and a churn that stays O(n)

    /// Keys for `kind`, as many as `count`.
    private func keys(_ kind: String, _ count: Int, _ generator: inout SplitMix64) -> [Int64] {
        switch kind {
        case "dense": return (0..<Int64(count)).map { $0 }
        // Across a multiple of every table size the run grows through: wraps at the end.
        case "wrapping": return (0..<Int64(count)).map { (1 << 13) - Int64(count / 2) + $0 }
        // Around zero: -1's home is the table's last place.
        case "around zero": return (0..<Int64(count)).map { $0 - Int64(count / 2) }
        case "strided": return (0..<Int64(count)).map { $0 << Int64(1 + $0 % 40) }
        case "colliding ranges":
            return (0..<Int64(count / 2)).map { $0 } + (0..<Int64(count / 2)).map { (1 << 16) + $0 }
        case "extremes":
            return (0..<Int64(count / 2)).map { Int64.min + $0 } + (0..<Int64(count / 2)).map { Int64.max - $0 }
        // Few homes, many ids each: probes pass 32 places with displaced entries carried.
        case "piled": return (0..<Int64(count)).map { ($0 % 16) + ($0 / 16) * 8_192 }
        default: return (0..<count).map { _ in Int64(bitPattern: generator.next()) }
        }
    }

    @Test(arguments: ["dense", "wrapping", "around zero", "strided", "colliding ranges", "extremes", "piled", "random"])
    func itAgreesWithADictionaryOverManySeeds(keys kind: String) throws {
        for seed in UInt64(0)..<12 {
            var generator = SplitMix64(seed: 0xB0B0_0000 &+ seed &* 7_919 &+ UInt64(kind.utf8.count))
            let count = [40, 200, 3_000][Int(seed % 3)]
            let keys = keys(kind, count, &generator).shuffled(using: &generator)
            var table = RowTable()
            if seed % 2 == 0 { table.reserveCapacity(4_096) }
            var model: [Int64: UnsafeMutableRawPointer] = [:]
            // First fill in a shuffled order (spreading may turn on during any insert)...
            for (round, key) in keys.enumerated() {
                let wasSpread = table.spreadsIDs
                table.set(address(round), for: key)
                model[key] = address(round)
                if !wasSpread && table.spreadsIDs {
                    // The moment spreading turned on: every entry still found.
                    for (held, value) in model { try #require(table[held] == value, "seed \(seed) key \(held)") }
                }
            }
            check(table, model, probing: keys)
            // ...then churn, looking up absent ids too.
            for round in 0..<(count * 4) {
                let key = keys.randomElement(using: &generator)!
                switch generator.next() % 8 {
                case 0..<3:
                    table.set(address(round + count), for: key)
                    model[key] = address(round + count)
                case 3..<6:
                    try #require(table.remove(key) == model.removeValue(forKey: key), "seed \(seed) round \(round)")
                case 6:
                    let absent = key &+ 1
                    try #require(table[absent] == model[absent], "seed \(seed) round \(round)")
                default:
                    table.shrink()
                }
                try #require(table.count == model.count, "seed \(seed) round \(round)")
            }
            check(table, model, probing: keys + keys.map { $0 &+ 1 })
            for key in model.keys { table.remove(key) }
            #expect(table.count == 0)
            table.shrink()
            #expect(table.capacity == 4)
            table.removeAll()
            #expect(!table.spreadsIDs)
        }
    }

    /// A context holds a dense run of rows (a big fetch), and rows whose ids alias into it
    /// (`id & mask` inside the run) come and go one at a time (fetched, used, freed: each
    /// deinit removes its entry). Each such insert shifted the rest of the run one place on
    /// (every entry of it one place from home: a probe of 1, never 32, so the table never
    /// spreads), and each removal shifted it back: O(run) per operation, quadratic in all.
    @Test func anAliasComingAndGoingInADenseRunIsNotLinearPerOperation() {
        // Below the table's capacity (65,536 in 131,072 places) with the alias in too.
        let run = 60_000
        var table = RowTable()
        let building = ContinuousClock().measure {
            for rowID in Int64(0)..<Int64(run) { table.set(address(Int(rowID)), for: rowID) }
        }
        // The table has 131,072 places: this id's home is place 1, the run's second entry.
        let alias = Int64(131_072 + 1)
        let churning = ContinuousClock().measure {
            for round in 0..<2_000 {
                table.set(address(run + round), for: alias)
                table.remove(alias)
            }
        }
        #expect(table.capacity == 65_536)
        #expect(table.count == run)
        #expect(table[alias] == nil && table[1] == address(1))
        // 4,000 operations on one id cost about as much as 65,536 inserts when each is cheap;
        // shifting the run, each costs about as much as them all.
        #expect(churning < building * 20, "churn \(churning), build \(building)")
    }
}
