import Foundation

/// The saved attribute values of one object, copied so that another context of the same
/// container can have its own object for the row without reading the row back.
///
/// StashREST hands a background import's objects to the caller's context this way: reading
/// 100,000 rows back cost 28k instructions an object (most of it parsing URLs and dates
/// again), a sixth of the whole call (stash-bench under callgrind, 20,000 records).
// Unchecked: `values` holds plain values only (the value types `StorableValue` covers,
// optional or not, all of them Sendable), copied out of an object whose context no longer
// changes it; `snapshot(of:)` refuses any other object.
package struct ObjectSnapshot: @unchecked Sendable {
    package let objectID: ObjectID
    let values: ContiguousArray<Any?>
    /// The container's save generation and the store's change token it is true for: any
    /// later save, here or by another process, and the row is read instead.
    let savedAt: (generation: UInt64, token: Int64)
}

extension ManagedObjectContext {
    /// Snapshots of the `objects` that `include` names, as they are saved; `nil` for the
    /// others, and for an object that cannot have one: it is new, changed or partly loaded,
    /// its entity has relationships, or one of its attributes holds a value that is not
    /// plain (a `Codable` kept as JSON text, a raw-value enum).
    ///
    /// The caller vouches that the objects it names hold their rows' values: they were
    /// inserted by the save that just ended. (An upserted object may hold values its merge
    /// policy did not write.)
    package func snapshots(
        of objects: [ManagedObject], where include: (ManagedObject) -> Bool
    ) -> [ObjectSnapshot?] {
        entering {
            objects.map { object in include(object) ? snapshot(of: object) : nil }
        }
    }

    private func snapshot(of object: ManagedObject) -> ObjectSnapshot? {
        let entity = object.entity
        guard entity.valuesTravel, let lastSave, object.managedObjectContext === self,
            object.state == .persisted,
            let rowID = object.rowID, object.unloaded.isEmpty, !object.rowIsGone,
            state(for: entity).updated[ObjectIdentifier(object)] == nil
        else { return nil }
        let stored = object.storage.values
        var values = ContiguousArray<Any?>()
        values.reserveCapacity(entity.attributes.count)
        for attribute in entity.attributes {
            // Never set: the insert left the column to its default, which for an optional
            // without one is NULL (a non-optional one is always set).
            guard var value = stored[attribute.index] ?? nilValue(of: attribute) else { return nil }
            // SQLite keeps NaN as NULL and -0.0 as 0.0: such a value is read back.
            if attribute.codec.queryKind == .real || attribute.codec.queryKind == .float,
                let number = (value as? Double) ?? (value as? Float).map(Double.init),
                number.isNaN || (number == 0 && number.sign == .minus)
            {
                return nil
            }
            // Dates are kept to the millisecond: the snapshot holds what a read gives.
            if attribute.codec.queryKind == .date, let date = value as? Date {
                guard let rounded = StoredDate.rounded(date) else { return nil }
                value = attribute.codec.isOptional ? Date?.some(rounded) as Any : rounded
            }
            values.append(value)
        }
        return ObjectSnapshot(
            objectID: ObjectID(entityName: entity.name, rowID: rowID, temporaryID: 0), values: values,
            savedAt: (lastSave.after, lastSave.token))
    }

    private func nilValue(of attribute: AttributeDescription) -> Any? {
        attribute.codec.isOptional ? attribute.codec.nilValue : nil
    }

    /// This context's objects for `snapshots`, in their order: the ones it holds as they
    /// are, the others made from the snapshots without reading the store. After any save
    /// since the snapshots (in this process or another), or where this context has new
    /// objects of the entity (which a row may turn out to be), the rows are read as
    /// `existingObjects(with:)` reads them, in one query.
    package func objects(from snapshots: [ObjectSnapshot]) throws -> [ManagedObject] {
        try entering {
            // Read instead, all at once: after another save (the snapshot may be stale), or
            // while this context has new objects of an entity (a row may be one of them).
            let token = try container.store.changeToken()
            let generation = container.saveGeneration
            if snapshots.contains(where: {
                $0.savedAt.generation != generation || $0.savedAt.token != token
                    || state(named: $0.objectID.entityName)?.inserted.isEmpty == false
            }) {
                return try existingObjects(with: snapshots.map(\.objectID))
            }
            var objects: [ManagedObject] = []
            objects.reserveCapacity(snapshots.count)
            for snapshot in snapshots {
                let objectID = snapshot.objectID
                guard let state = state(named: objectID.entityName), let rowID = objectID.rowID else {
                    throw StashError(
                        .unknownEntity, "\(objectID) is not a saved object of this container's models",
                        entity: objectID.entityName)
                }
                if let object = state.byRowID[rowID], !object.rowIsGone {
                    objects.append(object)
                    continue
                }
                let entity = state.entity
                let object = entity.type.init()
                object.cachedEntity = entity
                for (slot, value) in snapshot.values.enumerated() {
                    object.storage.values[slot] = value
                }
                registerPersisted(object, rowID: rowID, in: state)
                objects.append(object)
            }
            return objects
        }
    }
}
