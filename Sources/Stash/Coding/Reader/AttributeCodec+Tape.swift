/// Attributes decoded from the byte-level reader's own container (see
/// `StorableValue+Tape.swift` for why). Codecs of other kinds (conversions, JSON text, raw
/// values) take it boxed as a `KeyedDecodingContainer`, as JSONDecoder's is.
extension AttributeCodec {
    func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try decode(from: KeyedDecodingContainer(container), forKey: key)
    }

    func decodeAsOptional(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    {
        try decodeAsOptional(from: KeyedDecodingContainer(container), forKey: key)
    }
}

extension PrimitiveCodec {
    func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try Value.decodeBoxed(fromTape: container, forKey: key)
    }

    func decodeAsOptional(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Any
    {
        try Value.decodeBoxedOptional(fromTape: container, forKey: key)
    }
}

extension OptionalCodec {
    func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        if try container.decodeNil(forKey: key) { return nilValue }
        return try base.decodeAsOptional(fromTape: container, forKey: key)
    }
}
