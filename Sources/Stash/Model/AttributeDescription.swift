import Foundation

/// One attribute of an entity as the schema sees it: name, column, type and options.
///
/// Built once per entity by reflection over a blank instance; every decoded, fetched or
/// saved object is then handled through these descriptions, never through reflection.
final class AttributeDescription: Sendable {
    /// The Swift property name, which is also the column name and the JSON key.
    let name: String
    /// Position in the object's attribute storage, relative to its `slotBase`.
    let slot: Int
    let options: AttributeOptions
    /// `true` for `Optional` types: a NULL column, and `nil` for an absent or null key.
    let isOptional: Bool
    /// `true` when the blank instance had a value (an explicit default), or for optionals.
    let hasDefault: Bool
    /// The blank instance's value as stored, to fill the column when a migration adds it.
    let defaultSQLValue: SQLValue?
    let codec: any AttributeCodec
    /// The JSON key, made once so decoding does not build one per object.
    let codingKey: AttributeKey

    var isUnique: Bool { options.contains(.unique) }

    init(name: String, slot: Int, options: AttributeOptions, defaultValue: Any?, codec: any AttributeCodec) {
        self.name = name
        self.slot = slot
        self.options = options
        self.isOptional = codec.isOptional
        self.hasDefault = defaultValue != nil || codec.isOptional
        self.defaultSQLValue = defaultValue.flatMap { try? codec.sqlValue(for: $0) }
        self.codec = codec
        self.codingKey = AttributeKey(name)
    }

    /// The SQL type of the column, with NOT NULL for non-optional attributes.
    var columnDefinition: String {
        "\(quoted(name)) \(codec.columnType.rawValue)" + (isOptional ? "" : " NOT NULL")
    }
}

/// The coding key of an attribute: its Swift name.
struct AttributeKey: CodingKey, Sendable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// An SQL identifier in double quotes, with any quote inside doubled.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
