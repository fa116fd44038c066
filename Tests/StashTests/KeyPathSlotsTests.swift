import Testing

@testable import Stash

/// `KeyPathSlots`: a key path is found by identity among the last few, else by `==`, and
/// the answer never depends on which of the two found it.
@Suite struct KeyPathSlotsTests {
    final class Sample {
        var first = 0
        var second = ""
        var third = 0.0
        var nested = Nested()
    }

    struct Nested {
        var value = 0
        var other = 0
    }

    @Test func equalKeyPathsOfOtherIdentityFindTheSameSlot() {
        var slots = KeyPathSlots()
        slots.learn(\Sample.nested.value, 3)
        // Built by appending: equal to the literal, another object.
        let appended: AnyKeyPath = (\Sample.nested).appending(path: \Nested.value)
        #expect(appended == \Sample.nested.value)
        #expect(appended !== (\Sample.nested.value as AnyKeyPath))  // else only identity is tried
        #expect(slots.slot(of: appended) == 3)
        #expect(slots.slot(of: \Sample.nested.other) == nil)
    }

    @Test func moreKeyPathsThanAreRememberedAreAllFound() {
        var slots = KeyPathSlots()
        let keyPaths: [AnyKeyPath] = [
            \Sample.first, \Sample.second, \Sample.third, \Sample.nested, \Sample.nested.value, \Sample.nested.other,
        ]
        for (slot, keyPath) in keyPaths.enumerated() { slots.learn(keyPath, slot) }
        // Twice round, so that each is asked for after others pushed it out of the recent ones.
        for _ in 0..<2 {
            for (slot, keyPath) in keyPaths.enumerated().reversed() { #expect(slots.slot(of: keyPath) == slot) }
        }
        slots.learn(\Sample.first, 9)
        #expect(slots.slot(of: \Sample.first) == 9)
    }
}
