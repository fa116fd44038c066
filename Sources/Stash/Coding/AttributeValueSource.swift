/// Where an object's attribute values are read, with one set of rules (keys, their snake_case
/// form, nulls): any `KeyedDecodingContainer`, or the byte-level reader's own container, read
/// directly rather than through the box (see `StorableValue+Tape.swift`).
protocol AttributeValueSource: KeyedDecodingContainerProtocol where Key == AttributeKey {
    /// The value under `key` as `codec` decodes it.
    func value(of codec: any AttributeCodec, forKey key: AttributeKey) throws -> Any
}

extension KeyedDecodingContainer: AttributeValueSource where K == AttributeKey {
    func value(of codec: any AttributeCodec, forKey key: AttributeKey) throws -> Any {
        try codec.decode(from: self, forKey: key)
    }
}

extension TapeKeyedContainer: AttributeValueSource where Key == AttributeKey {
    func value(of codec: any AttributeCodec, forKey key: AttributeKey) throws -> Any {
        try codec.decode(fromTape: self, forKey: key)
    }
}
