extension ManagedObjectContext {
    /// Loads the stored values of the attributes `object` has not loaded, and those of every
    /// other partly loaded object of its entity: one query per 500 rows, whichever object
    /// is read first. Called when an attribute that is not loaded is read.
    ///
    /// Reading an attribute cannot throw: a store that fails here leaves the attributes
    /// unloaded, and the error is thrown by the context's next throwing call
    /// (`noteLoadFailure`). A row that another context or process deleted in the meantime
    /// marks its object gone (`isRowDeleted`).
    func fulfill(_ object: ManagedObject) {
        entering {
            let state = self.state(for: object.entity)
            do {
                state.partial.removeAll { state.byRowID[$0]?.unloaded.isEmpty ?? true }
                if let rowID = object.rowID, state.byRowID[rowID] === object, !state.partial.contains(rowID) {
                    state.partial.append(rowID)
                }
                try fulfill(state.partial.compactMap { state.byRowID[$0] }, in: state)
                state.partial.removeAll { state.byRowID[$0]?.unloaded.isEmpty ?? true }
            } catch {
                noteLoadFailure(error, reading: "the stored values of \(object.objectID)", entity: object.entity.name)
            }
        }
    }

    /// Loads the stored values of these objects' unloaded attributes (see `fill`). Objects
    /// whose row is gone stay as they are.
    func fulfill(_ objects: [ManagedObject], in state: EntityState) throws {
        let rowIDs = Set(objects.compactMap { $0.managedObjectContext === self ? $0.rowID : nil })
        guard !rowIDs.isEmpty else { return }
        var found = Set<Int64>()
        try container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs(rowIDs.sorted()))) { row in
            found.insert(row.rowID)
            guard let object = state.byRowID[row.rowID] else { return }
            try fill(object, from: row, in: state)
        }
        // Rows another context or process deleted: their objects know it now.
        for object in objects where object.managedObjectContext === self && object.state == .persisted {
            if let rowID = object.rowID, !found.contains(rowID) { object.rowIsGone = true }
        }
    }

    /// Gives a partly loaded object the stored values of the attributes it has not loaded,
    /// from `row` (every attribute column, in entity order). A changed attribute whose
    /// stored value was not known is compared with it now: if they are the same, it is no
    /// longer a change, so re-importing a payload into a fresh context writes nothing.
    func fill(_ object: ManagedObject, from row: any StoreRow, in state: EntityState) throws {
        let id = ObjectIdentifier(object)
        var saved = state.updated[id]
        let unknown = object.unloaded.union(saved?.unverified ?? AttributeSet())
        guard !unknown.isEmpty else { return }
        for attribute in state.entity.attributes where unknown.contains(attribute.index) {
            let stored = try inPlace(state.entity, attribute) { try attribute.codec.read(row, column: attribute.index) }
            if object.unloaded.contains(attribute.index) {
                object.setPrimitiveValue(stored, of: attribute)
                object.unloaded.remove(attribute.index)
            }
            if saved?.unverified.contains(attribute.index) == true {
                saved?.unverified.remove(attribute.index)
                if saved?.values != nil {
                    saved?.values?[attribute.index] = stored
                    saved?.unloaded.remove(attribute.index)
                }
                // Compared as the store sees them: the row's value as it is, the object's
                // as it would be written.
                if object.changedAttributes.contains(attribute.index), let current = object.value(of: attribute),
                    (try? attribute.codec.storedValue(for: current)) == row.value(attribute.index)
                {
                    object.changedAttributes.remove(attribute.index)
                }
            }
        }
        if let saved {
            state.updated[id] = object.changedAttributes.isEmpty ? nil : saved
        }
    }

    /// Before a save: the stored values of changed attributes that were never loaded, so
    /// that only real changes are written. A row that is gone is a `rowMissing` error.
    func verifyPartialChanges(in state: EntityState) throws {
        let unverified = state.updated.values.filter {
            !$0.unverified.intersection($0.object.changedAttributes).isEmpty && $0.object.state == .persisted
        }.map(\.object)
        guard !unverified.isEmpty else { return }
        try fulfill(unverified, in: state)
        for object in unverified {
            guard let saved = state.updated[ObjectIdentifier(object)] else { continue }
            if !saved.unverified.intersection(object.changedAttributes).isEmpty {
                throw StashError(
                    .rowMissing,
                    "the row \(object.rowID ?? 0) was deleted since this object was decoded for it; nothing was saved",
                    entity: state.entity.name)
            }
        }
    }
}
