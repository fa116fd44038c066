import Foundation

/// One attribute of an entity as the schema sees it: name, position, type and options.
///
/// Built once per entity when the entity is described; every decoded, fetched or saved
/// object is then handled through these descriptions, never through reflection.
final class AttributeDescription: Sendable {
    /// The Swift property name, which is also the column's name.
    let name: String
    /// Position in the entity: the slot of the object's value, and the column's position.
    let index: Int
    let options: AttributeOptions
    /// `true` for `Optional` types: a NULL column, and `nil` for an absent or null key.
    let isOptional: Bool
    /// `true` when the blank instance had a value (an explicit default), or for optionals.
    let hasDefault: Bool
    /// The blank instance's value as stored, to fill the column when a migration adds it.
    let defaultStoredValue: StoredValue?
    let codec: any AttributeCodec
    /// The JSON key: `@Attribute(key:)`, or the Swift name.
    let codingKey: AttributeKey
    /// For a declared key with underscores, the key `JSONDecoder`'s `.convertFromSnakeCase`
    /// turns it into (`author_id` becomes `authorId`): tried when `codingKey` is absent, so a
    /// key written as it appears in the JSON works with and without that strategy.
    let convertedKey: AttributeKey?
    /// The column's name in an earlier version of the model.
    let originalName: String?
    /// For a to-one relationship's column, the table it references.
    let referencedTable: String?

    var isUnique: Bool { options.contains(.unique) }

    init(name: String, index: Int, declaration: AttributeDeclaration, defaultValue: Any?, codec: any AttributeCodec) {
        self.name = name
        self.index = index
        self.options = declaration.options
        self.isOptional = codec.isOptional
        self.hasDefault = defaultValue != nil || codec.isOptional
        self.defaultStoredValue = defaultValue.flatMap { try? codec.storedValue(for: $0) }
        self.codec = codec
        self.codingKey = AttributeKey(declaration.key ?? name)
        let converted = declaration.key.map(convertFromSnakeCase)
        self.convertedKey = converted.flatMap { $0 == declaration.key ? nil : AttributeKey($0) }
        self.originalName = declaration.originalName
        self.referencedTable = declaration.relationship?.targetType.map { String(describing: $0) }
    }

    var isRelationship: Bool { referencedTable != nil }

    /// The column as a store sees it; `defaultMaker` for a default made anew per object.
    func column(defaultMaker: DefaultMaker?) -> ColumnSchema {
        ColumnSchema(
            name: name, type: codec.storedType, isOptional: isOptional, isUnique: isUnique,
            isIndexed: (options.contains(.indexed) || isRelationship) && !isUnique, defaultValue: defaultStoredValue,
            defaultMaker: defaultMaker, originalName: originalName, references: referencedTable)
    }
}

/// The coding key of an attribute: its JSON key.
struct AttributeKey: CodingKey, Sendable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// `author_id` as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` converts it:
/// `authorId`. Leading and trailing underscores stay; the first word is lowercased and
/// the others capitalized.
func convertFromSnakeCase(_ key: String) -> String {
    guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
    let last = key.lastIndex(where: { $0 != "_" })!
    let words = key[first...last].split(separator: "_")
    guard words.count > 1 else { return key }
    let joined = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
    return String(key[..<first]) + joined + String(key[key.index(after: last)...])
}
