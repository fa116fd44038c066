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
    /// The JSON key: `@Attribute(key:)`, or the Swift name; for a key path (`author.name`),
    /// its last key, inside the objects `keyPath` names.
    let codingKey: AttributeKey
    /// For a declared key with underscores, the key `JSONDecoder`'s `.convertFromSnakeCase`
    /// turns it into (`author_id` becomes `authorId`): tried when `codingKey` is absent, so a
    /// key written as it appears in the JSON works with and without that strategy.
    let convertedKey: AttributeKey?
    /// For a declared key path (`@Attribute(key: "author.name")`), the keys of the nested
    /// objects to go through before `codingKey`; `nil` for a plain key.
    let keyPath: [KeyStep]?
    /// The column's name in an earlier version of the model.
    let originalName: String?
    /// For a to-one relationship's column, the table it references.
    let referencedTable: String?

    var isUnique: Bool { options.contains(.unique) }

    /// `@Attribute(normalized:)`: the form a text value is kept in, which the setter applies
    /// (decoding does, in the codec).
    let normalization: AttributeNormalization?

    /// Throws for a declared key with an empty step (`"author..name"`, `"author."`), and for
    /// a `.lossless` or `normalized:` its type cannot take.
    init(
        name: String, index: Int, declaration: AttributeDeclaration, defaultValue: Any?, codec base: any AttributeCodec
    ) throws {
        let codec: any AttributeCodec
        do {
            codec = try ConvertingCodec.wrapping(base, for: declaration, defaultValue: defaultValue)
        } catch var error as StashError {
            error.attribute = name
            throw error
        }
        if declaration.options.contains(.searchable), base.valueType != String.self,
            base.valueType != Optional<String>.self
        {
            throw StashError(
                .invalidModel, ".searchable is for String and String? attributes, not \(base.typeName)",
                attribute: name)
        }
        self.normalization = declaration.normalization
        self.name = name
        self.index = index
        self.options = declaration.options
        self.isOptional = codec.isOptional
        self.hasDefault = defaultValue != nil || codec.isOptional
        self.defaultStoredValue = defaultValue.flatMap { try? codec.storedValue(for: $0) }
        self.codec = codec
        var steps = try declaration.key.map { try KeyStep.steps(of: $0, attribute: name) } ?? [KeyStep(swiftName: name)]
        let last = steps.removeLast()
        self.codingKey = last.key
        self.convertedKey = last.converted
        self.keyPath = steps.isEmpty ? nil : steps
        self.originalName = declaration.originalName
        self.referencedTable = declaration.relationship?.targetType.map { String(describing: $0) }
    }

    var isRelationship: Bool { referencedTable != nil }

    /// `value` in the declared normalized form (for attributes that declare one).
    func normalized(_ value: Any) -> Any {
        (codec as? ConvertingCodec)?.normalized(value) ?? value
    }

    /// The column as a store sees it; `defaultMaker` for a default made anew per object.
    func column(defaultMaker: DefaultMaker?) -> ColumnSchema {
        ColumnSchema(
            name: name, type: codec.storedType, isOptional: isOptional, isUnique: isUnique,
            isIndexed: (options.contains(.indexed) || isRelationship) && !isUnique, defaultValue: defaultStoredValue,
            defaultMaker: defaultMaker, originalName: originalName, references: referencedTable,
            isSearchable: options.contains(.searchable))
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

/// One key of a declared key path, with the form `.convertFromSnakeCase` gives it.
struct KeyStep: Sendable {
    let key: AttributeKey
    /// `key` as `.convertFromSnakeCase` turns it, if that differs (see `convertedKey`).
    let converted: AttributeKey?

    init(_ key: String) {
        self.key = AttributeKey(key)
        let converted = convertFromSnakeCase(key)
        self.converted = converted == key ? nil : AttributeKey(converted)
    }

    /// A Swift name as the key: taken as it is.
    init(swiftName: String) {
        key = AttributeKey(swiftName)
        converted = nil
    }

    /// The keys of a declared `@Attribute(key:)`: a dot goes one object in (`"user.login"`),
    /// as in `FetchOptions.itemsKey`; a backslash makes the next dot part of the key
    /// (`#"version\.major"#` is the one key `version.major`), and `\\` is a backslash.
    static func steps(of declared: String, attribute: String) throws -> [KeyStep] {
        guard declared.contains(".") || declared.contains("\\") else { return [KeyStep(declared)] }
        var keys = [""]
        var escaped = false
        for character in declared {
            if escaped {
                if character != "." && character != "\\" { keys[keys.count - 1].append("\\") }
                keys[keys.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                keys.append("")
            } else {
                keys[keys.count - 1].append(character)
            }
        }
        if escaped { keys[keys.count - 1].append("\\") }
        if keys.contains(where: \.isEmpty) {
            throw StashError(
                .invalidModel,
                "the key \"\(declared)\" has an empty step: a dot goes one object in (\"user.login\"); "
                    + #"write a dot that is part of a key as \."#,
                attribute: attribute)
        }
        return keys.map { KeyStep($0) }
    }

    /// Refuses key paths that make one JSON key both a value and an object
    /// (`key: "author"` beside `key: "author.name"`): neither could be decoded nor encoded.
    static func checkPaths(of attributes: [AttributeDescription]) throws {
        var objects: [[String]: String] = [:]
        for attribute in attributes where !attribute.isRelationship {
            let keys = (attribute.keyPath ?? []).map(\.key.stringValue) + [attribute.codingKey.stringValue]
            for depth in 1..<keys.count {
                objects[Array(keys[..<depth])] = objects[Array(keys[..<depth])] ?? attribute.name
            }
        }
        for attribute in attributes where !attribute.isRelationship {
            let keys = (attribute.keyPath ?? []).map(\.key.stringValue) + [attribute.codingKey.stringValue]
            if let other = objects[keys] {
                throw StashError(
                    .invalidModel,
                    "the key \"\(keys.joined(separator: "."))\" is \(attribute.name)'s value and holds \(other)'s",
                    attribute: other)
            }
        }
    }
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
