import Foundation

/// The default encoding of an `Encodable` managed object: each attribute under the key of
/// its name (the encoder's key strategy applies); `nil` optionals are left out.
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
        for attribute in entity.attributes where !attribute.isRelationship {
            guard let value = object.loadedValue(of: attribute) else {
                if attribute.isOptional { continue }
                throw StashError(
                    .missingValue, "has no value to encode", entity: entity.name, attribute: attribute.name)
            }
            try attribute.codec.encode(value, to: &container, forKey: attribute.codingKey)
        }
        for relationship in entity.relationships {
            try encode(relationship, of: object, to: &container)
        }
    }
}

extension ManagedObject {
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
