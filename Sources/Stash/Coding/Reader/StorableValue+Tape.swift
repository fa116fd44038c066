/// Values decoded from the byte-level reader's container as they are from any
/// `KeyedDecodingContainer`, but on the container itself: through `KeyedDecodingContainer`'s
/// box, each value cost about 290 instructions more (the box copies the container and the
/// key for every call, retaining what they hold), some 3.6k a record of stash-bench's import.
extension StorableValue {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Self {
        try container.decode(Self.self, forKey: key)
    }

    static func decodeBoxed(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    {
        try decode(fromTape: container, forKey: key)
    }

    static func decodeBoxedOptional(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey)
        throws -> Any
    {
        Self?.some(try decode(fromTape: container, forKey: key)) as Any
    }
}

// The container's own overloads for the types it reads directly, as `decode(from:forKey:)`
// takes KeyedDecodingContainer's.

extension Int {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Int {
        try container.decode(Int.self, forKey: key)
    }
}

extension Int64 {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Int64
    {
        try container.decode(Int64.self, forKey: key)
    }
}

extension Bool {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws -> Bool {
        try container.decode(Bool.self, forKey: key)
    }
}

extension String {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> String
    {
        try container.decode(String.self, forKey: key)
    }
}

extension Double {
    /// NaN is refused, as `decode(from:forKey:)` refuses it (JSON has none to give).
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Double
    {
        let value = try container.decode(Double.self, forKey: key)
        if value.isNaN { throw notANumber(KeyedDecodingContainer(container), key) }
        return value
    }
}

extension Float {
    static func decode(fromTape container: TapeKeyedContainer<AttributeKey>, forKey key: AttributeKey) throws
        -> Float
    {
        let value = try container.decode(Float.self, forKey: key)
        if value.isNaN { throw notANumber(KeyedDecodingContainer(container), key) }
        return value
    }
}
