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
    }
}
