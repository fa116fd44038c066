import Stash

/// The row every soak process writes: `check` is always `"writer-seq"` of the same save, so
/// a row whose columns came from two saves shows it (`isConsistent`).
final class SoakRow: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var writer: Int
    @Attribute var seq: Int
    @Attribute var check: String

    var isConsistent: Bool { check == Self.check(writer: writer, seq: seq) }

    static func check(writer: Int, seq: Int) -> String { "\(writer)-\(seq)" }

    /// The ids save `seq` of `writer` writes: drawn from a generator seeded with both
    /// (SplitMix64), so that the soak can tell afterwards whether a stored row came from a
    /// save that writer made.
    static func ids(writer: Int, seq: Int, rows: Int) -> Set<Int> {
        var state = UInt64(writer) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(seq)
        var ids = Set<Int>()
        for _ in 0..<4 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            ids.insert(Int(mixed % UInt64(rows)))
        }
        return ids
    }
}

/// One per writer, written by that writer alone with each of its saves: its count of saves
/// (so the soak finds any save lost), and the row by which other processes' `changes`
/// streams tell whose save they heard of.
final class SoakMark: ManagedObject, Decodable {
    @Attribute(.unique) var writer: Int
    @Attribute var saves: Int
}
