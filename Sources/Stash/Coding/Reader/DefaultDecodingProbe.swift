/// The decoder `ReaderEligibility` probes a model's `init(from:)` with: it refuses every
/// container, and carries a context of its own that nothing saves, so that a hand-written
/// `init(from:)` that traps without a context (`fatalError`, `as!`: the recipe is often
/// written so) finds one, and whatever it inserts there is dropped with it.
struct DefaultDecodingProbe: Decoder {
    /// Thrown by `ManagedObjectContext.carried(by:decoding:)` when handed the probe.
    struct Reached: Error {}
    struct Refused: Error {}

    let userInfo: [CodingUserInfoKey: Any]

    init(context: ManagedObjectContext) {
        userInfo = [.managedObjectContext: context]
    }

    var codingPath: [any CodingKey] { [] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw Refused() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Refused() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Refused() }
}
