import Foundation

/// The outbox side of a save: what it records for `RemoteModel` objects, and what it keeps
/// of the edits still waiting when it writes a server's values.
///
/// A context that records edits (`recordsEdits`) adds, for each `RemoteModel` object it
/// saves, an operation (`POST` for a new object, `PATCH` of the changed attributes, `DELETE`)
/// in the save's own transaction: a crash right after the save loses nothing. A context
/// that does not (StashREST's fetches and a push's answers) writes the server's values, but
/// the columns that operations still wait to send keep their local values until the push
/// has answered: a pull does not undo a push.
extension ManagedObjectContext {
    /// What this save does to the outbox, or `nil` when no `RemoteModel` is involved (the
    /// save path of other models is untouched).
    func outboxWrite(_ plan: SavePlan, insertOrder: [Int]) throws -> OutboxWrite? {
        var write = outboxHandOff
        outboxHandOff = OutboxWrite()
        var involved = !write.isEmpty
        var inserts: [OutboxWrite.Record] = []
        var updates: [OutboxWrite.Record] = []
        var deletes: [OutboxWrite.Record] = []
        let order = insertOrder.isEmpty ? Array(identity.states.indices) : insertOrder
        for position in order {
            let entity = identity.states[position].entity
            guard let remote = entity.type as? any RemoteModel.Type else { continue }
            let changed =
                !plan.inserted[position].isEmpty || !plan.updated[position].isEmpty || !plan.deleted[position].isEmpty
            guard changed else { continue }
            involved = true
            guard recordsEdits else {
                write.protectedEntities.append(entity.schema)
                if write.fetchedAt != nil, !plan.inserted[position].isEmpty,
                    let attribute = try remote.namingAttribute(in: entity)
                {
                    write.fetchedInsertKeys[entity.name] = try plan.inserted[position].map {
                        Array(try Self.key(of: $0, attribute, allowsMissing: true).utf8)
                    }
                }
                continue
            }
            guard let unique = entity.uniqueAttributes.first else {
                throw StashError(
                    .invalidModel, "a RemoteModel needs a .unique attribute, which names its objects on the API",
                    entity: entity.name)
            }
            let local = try remote.localSlots(in: entity)
            // A server-set key (`remoteKey`) may be unknown yet: `""`, found when sent.
            let serverKey = try remote.remoteKeyAttribute(in: entity)
            func key(of object: ManagedObject) throws -> String {
                if let serverKey { return try Self.key(of: object, serverKey, allowsMissing: true) }
                return try Self.key(of: object, unique)
            }
            /// The attributes of `slots` a push sends: not local ones, nor those of `other`.
            func sent(_ slots: AttributeSet, without other: AttributeSet = AttributeSet()) -> [AttributeDescription] {
                entity.attributes.filter {
                    slots.contains($0.index) && !local.contains($0.index) && !other.contains($0.index)
                }
            }
            var uniqueSlot = AttributeSet()
            uniqueSlot.insert(unique.index)
            for (offset, object) in plan.inserted[position].enumerated() {
                let attributes = sent(object.changedAttributes, without: uniqueSlot)
                var record = OutboxWrite.Record(
                    entity: entity.name, row: .inserted(entity: position, offset: offset),
                    key: try key(of: object), method: .post, attributes: attributes.map(\.name))
                record.columns = attributes.map(\.index)
                inserts.append(record)
            }
            for (offset, object) in plan.updated[position].enumerated() {
                let changed = sent(object.changedAttributes)
                guard !changed.isEmpty, let rowID = object.rowID else { continue }
                // The store leaves out what the row already held, as it reads it in the save.
                var record = OutboxWrite.Record(
                    entity: entity.name, row: .updated(entity: position, offset: offset, rowID: rowID),
                    key: try key(of: object), method: .patch, attributes: changed.map(\.name))
                record.columns = changed.map(\.index)
                updates.append(record)
            }
            for object in plan.deleted[position] {
                guard let rowID = object.rowID else { continue }
                var record = OutboxWrite.Record(
                    entity: entity.name, row: .known(rowID), key: try key(of: object), method: .delete,
                    attributes: [])
                record.storedKey =
                    try object.loadedValue(of: unique).map { try unique.codec.storedValue(for: $0) } ?? .null
                deletes.append(record)
            }
        }
        // Parents' new rows before their children's; children's deletions before their parents'.
        write.records = inserts + updates + deletes.reversed()
        return involved ? write : nil
    }

    /// The object's unique value as its JSON holds it, as text (a `UUID`'s `uuidString`, a
    /// number's digits): what names it in the API's paths. With `allowsMissing` (a key the
    /// server sets), `""` while it has none.
    static func key(of object: ManagedObject, _ unique: AttributeDescription, allowsMissing: Bool = false) throws
        -> String
    {
        let value = object.loadedValue(of: unique)
        // The common keys without an encoder per object and save: as JSON writes them.
        switch value {
        case let text as String: return text
        case let uuid as UUID: return uuid.uuidString
        case let number as Int: return String(number)
        case let number as Int64: return String(number)
        default: break
        }
        if let encodable = value as? any Encodable,
            let data = try? encodedInArray(encodable),
            let json = (try? JSONSerialization.jsonObject(with: data)) as? [Any]
        {
            switch json.first {
            case let text as String: return text
            case let number as NSNumber: return number.stringValue
            case is NSNull where allowsMissing: return ""
            default: break
            }
        }
        if allowsMissing, value == nil { return "" }
        throw StashError(
            .missingValue, "names the object on the API (RemoteModel) but has no text or number value",
            entity: object.entity.name, attribute: unique.name)
    }

    private static func encodedInArray<Value: Encodable>(_ value: Value) throws -> Data {
        try JSONEncoder().encode([value])
    }

    /// Deletes the objects that hold the unique value a `DELETE` named (its own row is gone):
    /// a copy that a fetch brought back while the deletion waited to be pushed. Part of the
    /// save that acknowledges the `DELETE`.
    package func deleteObjectsNamed(by operation: OutboxOperation) throws {
        try entering {
            for objectID in try objectsNamed(by: operation) { delete(try existingObject(with: objectID)) }
        }
    }

    /// Saves, and in the same transaction removes the outbox operations a server
    /// acknowledged and keeps the rows' ETags: a push writes the server's answer and forgets
    /// the operation at once, or neither. With nothing else to save, writes those alone.
    package func saveAcknowledging(_ acknowledged: [Int64], etags: [OutboxETag], keys: [OutboxKey] = []) throws {
        try entering {
            outboxHandOff.acknowledged += acknowledged
            outboxHandOff.etags += etags
            outboxHandOff.keys += keys
            do {
                try saveChanges()
            } catch {
                outboxHandOff = OutboxWrite()
                throw error
            }
            guard !outboxHandOff.isEmpty else { return }
            let handOff = outboxHandOff
            outboxHandOff = OutboxWrite()
            try container.updateOutbox(acknowledged: handOff.acknowledged, etags: handOff.etags, keys: handOff.keys)
        }
    }

    /// `saveChanges()` for a fetch whose first request was sent at `mark` (taken from an
    /// `OutboxWatch` held since): the columns of operations a push acknowledged after it keep
    /// what the push wrote, as those of waiting operations do, and their rows are not deleted.
    package func saveChanges(fetchedAt mark: OutboxMark?) throws -> ChangeSet {
        try entering {
            outboxHandOff.fetchedAt = mark
            // Taken by the save's `outboxWrite`; not left for a later save if it failed before.
            defer { outboxHandOff.fetchedAt = nil }
            return try saveChanges()
        }
    }

    /// For a fetch whose first request was sent at `mark`, before its save: deletes the new
    /// objects that a `DELETE` a push acknowledged since then named. The server still held
    /// them when it answered, so the answer made them again here; saved, they would stay for
    /// good, as no operation is left to remove them (one still waiting does, see
    /// `deleteObjectsNamed(by:)`). Answers how many it deleted.
    package func dropObjectsDeleted(since mark: OutboxMark?) throws -> Int {
        guard let mark, let store = container.store as? any OutboxStore else { return 0 }
        let deleted = store.acknowledgements.deletedKeys(since: mark)
        guard !deleted.isEmpty else { return 0 }
        return try entering {
            var dropped = 0
            for state in identity.states {
                guard let keys = deleted[state.entity.name], let remote = state.entity.type as? any RemoteModel.Type,
                    let attribute = try remote.namingAttribute(in: state.entity)
                else { continue }
                for object in state.inserted where state.isLive(object) {
                    let key = try Self.key(of: object, attribute, allowsMissing: true)
                    guard !key.isEmpty, keys.contains(Array(key.utf8)) else { continue }
                    delete(object)
                    dropped += 1
                }
            }
            return dropped
        }
    }

    /// The `remoteKey` (or first unique value) of the operation's row as text, or `nil` while
    /// the server has not set it: what names the object when an operation is sent. A
    /// `DELETE`'s row is gone: a copy a fetch brought back (found by the unique value it
    /// had, as `deleteObjectsNamed(by:)` finds it) may hold the key.
    package func remoteKey(for operation: OutboxOperation) throws -> String? {
        if let key = try remoteKey(of: operation.objectID) { return key }
        return try entering {
            for objectID in try objectsNamed(by: operation) {
                if let key = try remoteKey(of: objectID) { return key }
            }
            return nil
        }
    }

    /// The stored rows that hold the unique value a `DELETE` named when it was recorded (its
    /// own row is gone): copies a fetch brought back while the deletion waited. None for any
    /// other operation.
    private func objectsNamed(by operation: OutboxOperation) throws -> [ObjectID] {
        guard operation.method == .delete, operation.storedKey != .null,
            let entity = container.entities.first(where: { $0.name == operation.entityName }),
            let unique = entity.uniqueAttributes.first
        else { return [] }
        var objectIDs: [ObjectID] = []
        let query = StoreQuery(
            entity.schema, columns: [unique.index], filter: .values(column: unique.index, [operation.storedKey]))
        try container.store.fetch(query) { row in
            objectIDs.append(ObjectID(entityName: entity.name, rowID: row.rowID))
        }
        guard !objectIDs.isEmpty else { return [] }
        // A row with operations of its own waiting is the user's (deleted, then made again with
        // the same unique value before the push), not a copy a fetch brought back: deleted
        // here, its POST found no row and was dropped in silence.
        let waiting = Set(try container.outboxOperations().map(\.objectID))
        return objectIDs.filter { !waiting.contains($0) }
    }

    /// The row's `remoteKey` (or first unique value) as text, or `nil` while the server has
    /// not set it or when the row is gone.
    func remoteKey(of objectID: ObjectID) throws -> String? {
        try entering {
            guard let entity = container.entities.first(where: { $0.name == objectID.entityName }),
                let remote = entity.type as? any RemoteModel.Type,
                let object = try? existingObject(with: objectID)
            else { return nil }
            guard let attribute = try remote.namingAttribute(in: entity) else {
                return nil
            }
            let key = try Self.key(of: object, attribute, allowsMissing: true)
            return key.isEmpty ? nil : key
        }
    }
}
