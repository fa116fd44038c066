import Testing

@testable import Stash

/// The small set of attribute positions: its count, past the first word of 64 too (what
/// a re-imported object's saved values make room for).
@Suite struct AttributeSetTests {
    @Test func countsPositionsInEveryWord() {
        var set = AttributeSet()
        #expect(set.count == 0)
        for position in [0, 5, 63, 64, 100, 200] { set.insert(position) }
        #expect(set.count == 6)
        set.insert(5)
        #expect(set.count == 6)
        set.remove(100)
        #expect(set.count == 5)
        #expect(AttributeSet.all(130).count == 130)
        #expect(AttributeSet.all(130).subtracting(set).count == 130 - 4)
    }

    /// Two sets are equal, and hash alike, when they hold the same positions, however many
    /// words past the first each keeps: a position past 64 inserted and removed again leaves
    /// a word of zeros that an empty set does not have.
    @Test func setsOfTheSamePositionsAreEqualWhateverWordsTheyKeep() {
        var emptied = AttributeSet()
        emptied.insert(3)
        emptied.insert(130)
        emptied.remove(130)
        var plain = AttributeSet()
        plain.insert(3)
        #expect(emptied == plain)
        #expect(emptied.hashValue == plain.hashValue)
        #expect(Set([emptied, plain]).count == 1)
        emptied.remove(3)
        #expect(emptied.isEmpty)
        #expect(emptied == AttributeSet())
        var wide = AttributeSet()
        wide.insert(70)
        #expect(wide != plain)
        #expect(wide.union(plain).contains(70) && wide.union(plain).contains(3))
        #expect(wide.intersection(AttributeSet.all(71)) == wide)
        #expect(plain.union(wide).subtracting(wide) == plain)
    }
}
