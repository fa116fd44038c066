import Foundation

/// Any other `Codable` value (arrays, dictionaries, nested structs), stored as JSON text
/// with sorted keys so equal values store equal text, and dates in the same ISO 8601 form
/// as date columns.
struct JSONTextCodec<Value: Codable>: AttributeCodec {
    var storedType: StoredType { .text }
    var isOptional: Bool { false }
    var typeName: String { String(describing: Value.self) }
    var valueType: Any.Type { Value.self }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        try container.decode(Value.self, forKey: key)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try container.encode(value as! Value, forKey: key)
    }

    func storedValue(for value: Any) throws -> StoredValue {
        try Self.text(of: value as! Value)
    }

    /// The value as JSON text, as an attribute of its type is stored.
    static func text(of value: Value) throws -> StoredValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try StoredDate.string(from: date))
        }
        do {
            return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            throw StashError(.invalidValue, "cannot encode \(Value.self) as JSON: \(error)")
        }
    }

    /// A value decoded from the first of a few JSON texts that make one (`[]`, `{}`, …).
    func placeholder() -> Any? {
        for text in ["[]", "{}", "\"\"", "0", "false", "null"] {
            if let value = try? JSONDecoder().decode(Value.self, from: Data(text.utf8)) { return value }
        }
        return nil
    }

    var queryKind: QueryKind { .json }

    func value(from storedValue: StoredValue) throws -> Any {
        guard case .text(let text) = storedValue else {
            throw StashError(.invalidValue, "the stored \(storedValue.kindName) value is not JSON text for \(typeName)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = StoredDate.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
            }
            return date
        }
        do {
            return try decoder.decode(Value.self, from: Data(text.utf8))
        } catch {
            throw StashError(.invalidValue, "the stored JSON cannot be read as \(typeName): \(error)")
        }
    }
}
