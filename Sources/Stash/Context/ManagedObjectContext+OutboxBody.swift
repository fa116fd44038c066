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
            for attribute in entity.attributes where !local.contains(attribute.index) {
                if operation.method == .patch, !operation.attributes.contains(attribute.name) { continue }
                if let relationship = entity.relationshipsBySlot[attribute.index] {
                    keys.insert(relationship.codingKey.stringValue)
                } else {
                    keys.insert(attribute.keyPath?.first?.key.stringValue ?? attribute.codingKey.stringValue)
                }
            }
            let encoded = try encoder.encode(encodable)
            guard let whole = try JSONSerialization.jsonObject(with: encoded) as? [String: Any] else { return encoded }
            return try JSONSerialization.data(
                withJSONObject: whole.filter { keys.contains($0.key) }, options: [.sortedKeys, .withoutEscapingSlashes])
        }
    }
}

extension PersistentContainer {
    /// The `RemoteModel` class of the entity named `name`, if it is one of this container's.
    package func remoteModelType(named name: String) -> (any RemoteModel.Type)? {
        entities.first { $0.name == name }?.type as? any RemoteModel.Type
    }
}
