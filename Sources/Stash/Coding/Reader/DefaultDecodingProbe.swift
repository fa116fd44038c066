/// The decoder `ReaderEligibility` probes a model's `init(from:)` with: it holds nothing,
/// and refuses every container.
struct DefaultDecodingProbe: Decoder {
    /// Thrown by `ManagedObjectContext.carried(by:decoding:)` when handed the probe.
    struct Reached: Error {}
    struct Refused: Error {}

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw Refused() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Refused() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Refused() }
}
