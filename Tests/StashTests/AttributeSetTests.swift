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
}
