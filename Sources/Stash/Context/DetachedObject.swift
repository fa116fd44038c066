import Foundation

/// A saved object that left its context, on its way to another context of the same
/// container, which adopts it as its object for the row without reading the row back.
///
/// StashREST hands a background import's objects to the caller's context this way. Reading
/// 100,000 rows back cost 28k instructions an object (most of it parsing URLs and dates
/// again); copying the values into a new object cost 20k; moving the object itself costs 13k
/// (stash-bench under callgrind, 20,000 records), and holds the main actor half as long.
// Unchecked: the object left its context (`detach` took it out of the row map and the
// unique indexes, the only tables that hold saved objects, so the context never reaches it
// again), holds plain values only (the Sendable value types `StorableValue` covers) and no
// stored properties but Stash's wrappers: until a context adopts it, nothing refers to it.
package struct DetachedObject: @unchecked Sendable {
    package let objectID: ObjectID
    let object: ManagedObject
    /// The container's save generation and the store's change token its values are true
    /// for: after any later save, here or by another process, the row is read instead.
    let savedAt: (generation: UInt64, token: Int64)
}

extension ManagedObjectContext {
    /// Takes out of this context the `objects` whose rows `include` names (by entity name and
    /// row id), as they are saved, so that another context may adopt them; `nil` for the
    /// others, and for an object that
    /// cannot leave: it is new, changed or partly loaded, its entity has relationships, one
    /// of its attributes holds a value that is not plain (a `Codable` kept as JSON text, a
    /// raw-value enum), or a number the store keeps otherwise (NaN, -0.0). Dates are
    /// rounded to the millisecond on the way, as the store keeps them.
    ///
    /// The caller vouches that the objects it names hold their rows' values (they were
    /// inserted by the save that just ended: an upserted object may hold values its merge
    /// policy did not write) and that it lets go of them: this context forgets them, and a
    /// later fetch or decode here makes new objects for their rows.
    package func detach(
        _ objects: [ManagedObject], whereRow include: (_ entityName: String, _ rowID: Int64) -> Bool
    ) -> [DetachedObject?] {
        entering {
            let detached = objects.map { object in prepareToLeave(object, ifRow: include) }
            let leaving = Set(detached.compactMap { $0.map { ObjectIdentifier($0.object) } })
            guard !leaving.isEmpty else { return detached }
            for state in identity.states {
                // Unique values name the rows from now on, not the objects.
                for index in state.uniqueIndexes.indices {
                    Self.nameRows(in: &state.uniqueIndexes[index], insteadOf: leaving)
                }
                for index in state.compositeIndexes.indices {
                    Self.nameRows(in: &state.compositeIndexes[index], insteadOf: leaving)
                }
            }
            for case let object? in detached.map({ $0?.object }) {
                let state = identity.state(for: object.entity)
                if let rowID = object.rowID, state.byRowID[rowID] === object { state.byRowID[rowID] = nil }
                object.managedObjectContext = nil
                object.state = .transient
            }
            return detached
        }
    }

    /// Replaces the entries of `index` that name one of the `leaving` objects by its row.
    private static func nameRows<Key>(in index: inout [Key: UniqueEntry], insteadOf leaving: Set<ObjectIdentifier>) {
        // Stepped by hand: `indices` would hold a copy of the dictionary, and writing
        // through it would copy every entry.
        var position = index.values.startIndex
        while position != index.values.endIndex {
            let object: ManagedObject? =
                switch index.values[position] {
                case .queued(let object): object
                case .unsaved(let entry): entry.object
                case .row: nil
                }
            if let object, leaving.contains(ObjectIdentifier(object)), let rowID = object.rowID {
                index.values[position] = .row(rowID)
            }
            index.values.formIndex(after: &position)
        }
    }

    /// `object` made ready to leave, if `include` names its row: its unset optionals nil and
    /// its dates rounded, as a read of its row would give them; `nil`, and left as it is, if
    /// it cannot leave (see `detach`).
    private func prepareToLeave(_ object: ManagedObject, ifRow include: (String, Int64) -> Bool) -> DetachedObject? {
        let entity = object.entity
        guard entity.valuesTravel, let lastSave, object.managedObjectContext === self,
            object.state == .persisted,
            let rowID = object.rowID, include(entity.name, rowID), object.unloaded.isEmpty, !object.rowIsGone,
            identity.state(for: entity).updated[ObjectIdentifier(object)] == nil
        else { return nil }
        // Never set: the insert left the column to its default, which for an optional
        // without one is NULL (a non-optional one is always set).
        let layout = object.layout
        var unset: [AttributeDescription] = []
        for attribute in entity.attributes where !layout.isSet(atSlot: attribute.index, of: object) {
            guard attribute.codec.isOptional else { return nil }
            unset.append(attribute)
        }
        // Checked first, then rounded: an object that cannot leave is left as it was.
        for slot in entity.storeAdjusted where !layout.roundTrip(atSlot: slot, of: object, write: false) {
            // SQLite keeps NaN as NULL and -0.0 as 0.0: such an object's row is read.
            return nil
        }
        for attribute in unset { object.setValue(attribute.codec.nilValue, inSlot: attribute.index) }
        for slot in entity.storeAdjusted {
            let rounded = layout.roundTrip(atSlot: slot, of: object, write: true)
            assert(rounded, "checked above")
        }
        return DetachedObject(
            objectID: ObjectID(entityName: entity.name, rowID: rowID, temporaryID: 0), object: object,
            savedAt: (lastSave.after, lastSave.token))
    }

    /// This context's objects for `detached`, in their order: the ones it holds as they
    /// are, the others adopted without reading the store. After any save since they were
    /// detached (in this process or another), or where this context has new objects of the
    /// entity (which a row may turn out to be), the rows are read as `existingObjects(with:)`
    /// reads them, in one query, and the detached objects are dropped.
    package func adopt(_ detached: [DetachedObject]) throws -> [ManagedObject] {
        try entering {
            let token = try container.store.changeToken()
            let generation = container.saveGeneration
            if detached.contains(where: {
                $0.savedAt.generation != generation || $0.savedAt.token != token
                    || identity.state(named: $0.objectID.entityName)?.inserted.isEmpty == false
            }) {
                return try existingObjects(with: detached.map(\.objectID))
            }
            var objects: [ManagedObject] = []
            objects.reserveCapacity(detached.count)
            for each in detached {
                let objectID = each.objectID
                guard let state = identity.state(named: objectID.entityName), let rowID = objectID.rowID else {
                    throw StashError(
                        .unknownEntity, "\(objectID) is not a saved object of this container's models",
                        entity: objectID.entityName)
                }
                if let object = state.byRowID[rowID], !object.rowIsGone {
                    objects.append(object)
                    continue
                }
                precondition(
                    each.object.managedObjectContext == nil && each.object.state == .transient,
                    "\(objectID) was adopted already: a detached object goes to one context")
                registerPersisted(each.object, rowID: rowID, in: state)
                objects.append(each.object)
            }
            return objects
        }
    }
}
