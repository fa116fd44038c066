import Foundation

extension ManagedObjectContext {
    /// The JSON body that sends `operation`: the object as the model encodes it, keeping the
    /// keys of what the operation sends (a `POST`: every attribute but the local ones; a
    /// `PATCH`: the attributes changed). `nil` when its row is gone.
    package func outboxBody(for operation: OutboxOperation, using encoder: JSONEncoder) throws -> Data? {
        try entering {
            guard let entity = container.entities.first(where: { $0.name == operation.entityName }),
                let remote = entity.type as? any RemoteModel.Type
            else {
                throw StashError(.unknownEntity, "is not a RemoteModel of this container", entity: operation.entityName)
            }
            guard let object = try? existingObject(with: operation.objectID) else { return nil }
            guard let encodable = object as? any Encodable else { return nil }
            let local = try remote.localSlots(in: entity)
            var keys = Set<String>()
            // A to-one relationship as its target's unique value written as the target's own
            // JSON writes it (a UUID's uuidString), which is how the API knows the target.
            var references: [String: Any] = [:]
            for attribute in entity.attributes where !local.contains(attribute.index) {
                if operation.method == .patch, !operation.attributes.contains(attribute.name) { continue }
                if let relationship = entity.relationship(atSlot: attribute.index) {
                    let key = relationship.codingKey.stringValue
                    keys.insert(key)
                    if let target = object.toOneTarget(atSlot: attribute.index)?.resolved,
                        let unique = target.entity.uniqueAttributes.first,
                        let value = target.loadedValue(of: unique)
                    {
                        references[key] = Self.jsonValue(of: value, using: encoder) ?? NSNull()
                    }
                } else {
                    keys.insert(attribute.keyPath?.first?.key.stringValue ?? attribute.codingKey.stringValue)
                }
            }
            let encoded = try encoder.encode(encodable)
            guard var whole = try JSONSerialization.jsonObject(with: encoded) as? [String: Any] else { return encoded }
            whole.merge(references) { _, reference in reference }
            return try JSONSerialization.data(
                withJSONObject: whole.filter { keys.contains($0.key) }, options: [.sortedKeys, .withoutEscapingSlashes])
        }
    }

    /// `value` as `encoder` writes it, as a JSON value (`String`, `NSNumber`, …).
    private static func jsonValue(of value: Any, using encoder: JSONEncoder) -> Any? {
        guard let encodable = value as? any Encodable, let data = try? encodedInArray(encodable, encoder) else {
            return nil
        }
        return ((try? JSONSerialization.jsonObject(with: data)) as? [Any])?.first
    }

    private static func encodedInArray<Value: Encodable>(_ value: Value, _ encoder: JSONEncoder) throws -> Data {
        try encoder.encode([value])
    }
}

extension PersistentContainer {
    /// The `RemoteModel` class of the entity named `name`, if it is one of this container's.
    package func remoteModelType(named name: String) -> (any RemoteModel.Type)? {
        entities.first { $0.name == name }?.type as? any RemoteModel.Type
    }
}
