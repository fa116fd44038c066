import Foundation

/// Server-set keys (`RemoteModel.remoteKey`), as a push needs them: where a `POST`'s answer
/// holds the key, and what a row holds now.
extension PersistentContainer {
    /// The JSON key under which the entity's `remoteKey` comes back (`"id"`), or `nil` when
    /// the entity is named by its first unique value, known before any push.
    package func remoteKeyJSONName(ofEntity name: String) -> String? {
        guard let entity = entities.first(where: { $0.name == name }),
            let remote = entity.type as? any RemoteModel.Type,
            let attribute = try? remote.remoteKeyAttribute(in: entity)
        else { return nil }
        return attribute.keyPath?.first?.key.stringValue ?? attribute.codingKey.stringValue
    }

    /// The `remoteKey` that `answer` (a `POST`'s JSON object) holds, as text: `nil` when the
    /// entity has no server-set key or the answer does not hold it.
    package func remoteKey(ofEntity name: String, inAnswer answer: Data) -> String? {
        guard let jsonName = remoteKeyJSONName(ofEntity: name),
            let object = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
        else { return nil }
        switch object[jsonName] {
        case let text as String where !text.isEmpty: return text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }
}
