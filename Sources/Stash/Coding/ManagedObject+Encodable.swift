import Foundation

/// The default encoding of an `Encodable` managed object: each attribute under the key of
/// its name or its declared key (the encoder's key strategy applies), inside nested objects
/// for a key path (`author.name`); `nil` optionals are left out, and so is a nested object
/// that would hold nothing.
///
/// ```swift
/// final class Post: ManagedObject, Codable { … }
/// let json = try JSONEncoder().encode(posts)
/// ```
extension Encodable where Self: ManagedObject {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AttributeKey.self)
        let entity = self.entity
        let object = resolved
        var nested: [NestedValue] = []
        for attribute in entity.attributes where !attribute.isRelationship {
            guard let value = object.loadedValue(of: attribute) else {
                if attribute.isOptional { continue }
                throw StashError(
                    .missingValue, "has no value to encode", entity: entity.name, attribute: attribute.name)
            }
            if let path = attribute.keyPath {
                if attribute.isOptional, (try? attribute.codec.storedValue(for: value)) == .null { continue }
                nested.append((path.map(\.key) + [attribute.codingKey], attribute, value))
                continue
            }
            try attribute.codec.encode(value, to: &container, forKey: attribute.codingKey)
        }
        if !nested.isEmpty { try encodeNested(nested, depth: 0, to: &container) }
        for relationship in entity.relationships {
            try encode(relationship, of: object, to: &container)
        }
    }
}

extension ManagedObject {
    /// Values of key-path attributes, each inside the nested objects its keys name; values
    /// that share an object (`author.name`, `author.url`) share one.
    fileprivate func encodeNested(
        _ entries: [NestedValue], depth: Int,
        to container: inout KeyedEncodingContainer<AttributeKey>
    ) throws {
        var objects: [(key: AttributeKey, entries: [NestedValue])] = []
        for entry in entries {
            let key = entry.keys[depth]
            if depth == entry.keys.count - 1 {
                try entry.attribute.codec.encode(entry.value, to: &container, forKey: key)
            } else if let index = objects.firstIndex(where: { $0.key.stringValue == key.stringValue }) {
                objects[index].entries.append(entry)
            } else {
                objects.append((key, [entry]))
            }
        }
        for object in objects {
            var inner = container.nestedContainer(keyedBy: AttributeKey.self, forKey: object.key)
            try encodeNested(object.entries, depth: depth + 1, to: &inner)
        }
    }

    /// A relationship as references: the related objects' first unique values (`"author": 7`,
    /// `"tags": [1, 2]`), as a payload that decodes back into the same graph; `null` for no
    /// object. A target without a unique attribute cannot be named, so it is left out.
    fileprivate func encode(
        _ relationship: RelationshipDescription, of object: ManagedObject,
        to container: inout KeyedEncodingContainer<AttributeKey>
    ) throws {
        guard let unique = relationship.target.uniqueAttributes.first else { return }
        func reference(_ target: ManagedObject) throws -> StoredValue {
            guard let value = target.loadedValue(of: unique) else { return .null }
            return try unique.codec.storedValue(for: value)
        }
        switch relationship.kind {
        case .toOne(let slot):
            guard let target = object.toOneTarget(atSlot: slot) else {
                return try container.encodeNil(forKey: relationship.codingKey)
            }
            try container.encode(Primitive(try reference(target)), forKey: relationship.codingKey)
        case .toMany(let index):
            let targets: [ManagedObject] = object.toManyObjects(at: index, as: [ManagedObject].self)
            try container.encode(try targets.map { Primitive(try reference($0)) }, forKey: relationship.codingKey)
        }
    }
}

/// A key-path attribute's value to encode, with every key on its way.
private typealias NestedValue = (keys: [AttributeKey], attribute: AttributeDescription, value: Any)

/// A stored value as the JSON primitive it is.
private struct Primitive: Encodable {
    let value: StoredValue

    init(_ value: StoredValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .null: try container.encodeNil()
        case .integer(let integer): try container.encode(integer)
        case .real(let real): try container.encode(real)
        case .text(let text): try container.encode(text)
        case .blob(let bytes): try container.encode(Data(bytes))
        }
    }
}
