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
}
