/// The context's part that loads what partly loaded objects have not loaded yet: an object
/// made from a decoded row (`adoptRow`) holds only the JSON's values until an attribute it
/// lacks is read. Loads are batched per entity (a range scan over dense row ids, else one
/// query per 500 rows: `SQLiteStore.fetch`), and compare decoded values with the row's, so a
/// re-import of unchanged data leaves nothing to save.
final class FaultLoader: ContextPart {
    /// Loads the stored values of the attributes `object` has not loaded, and those of every
    /// other partly loaded object of its entity (a range scan, or queries of 500 rows),
    /// whichever object is read first. Called when an attribute that is not loaded is read.
    ///
    /// Reading an attribute cannot throw: a store that fails here leaves the attributes
    /// unloaded, and the error is thrown by the context's next throwing call
    /// (`noteLoadFailure`). A row that another context or process deleted in the meantime
    /// marks its object gone (`isRowDeleted`).
    func fulfill(_ object: ManagedObject) {
        context.entering {
            let state = context.identity.state(for: object.entity)
            do {
                state.partial.removeAll { state.byRowID[$0]?.unloaded.isEmpty ?? true }
                if let rowID = object.rowID, state.byRowID[rowID] === object, !state.partial.contains(rowID) {
                    state.partial.append(rowID)
                }
                try fulfill(state.partial.compactMap { state.byRowID[$0] }, in: state)
                state.partial.removeAll { state.byRowID[$0]?.unloaded.isEmpty ?? true }
            } catch {
                context.noteLoadFailure(
                    error, reading: "the stored values of \(object.objectID)", entity: object.entity.name)
            }
        }
    }

    /// Loads the stored values of these objects' unloaded attributes (see `fill`). Objects
    /// whose row is gone stay as they are.
    func fulfill(_ objects: [ManagedObject], in state: EntityState) throws {
        let context = self.context!
        let rowIDs = Set(objects.compactMap { $0.managedObjectContext === context ? $0.rowID : nil })
        guard !rowIDs.isEmpty else { return }
        var found = Set<Int64>()
        try context.container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs(rowIDs.sorted()))) { row in
            found.insert(row.rowID)
            guard let object = state.byRowID[row.rowID] else { return }
            try fill(object, from: row, in: state)
        }
        // Rows another context or process deleted: their objects know it now.
        for object in objects where object.managedObjectContext === context && object.state == .persisted {
            if let rowID = object.rowID, !found.contains(rowID) { object.rowIsGone = true }
        }
    }

    /// Gives a partly loaded object the stored values of the attributes it has not loaded,
    /// from `row` (every attribute column, in entity order). A changed attribute whose
    /// stored value was not known is compared with it now: one that differs is known to be
    /// a change; one that is the same is restated (`restatedAttributes`): no change, so
    /// re-importing a payload into a fresh context leaves nothing to save unless the row
    /// moves on before the save, which compares it again inside its transaction.
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
                // Loaded now: a rollback leaves it as it reads. Marked unloaded again, a later
                // fill took the row's value for it alone, beside values from before another save.
                saved?.unloaded.remove(attribute.index)
            }
            if saved?.unverified.contains(attribute.index) == true {
                saved?.rowHolds(stored, atSlot: attribute.index, changedHere: true)
                // Compared as the store sees them: the row's value as it is, the object's
                // as it would be written. One that differs is a change the save writes; one
                // that is the same is restated, compared again inside the save's
                // transaction, since the row may move on before then.
                if object.changedAttributes.contains(attribute.index), let current = object.value(of: attribute),
                    (try? attribute.codec.storedValue(for: current)) == row.value(attribute.index)
                {
                    object.changedAttributes.remove(attribute.index)
                    object.restatedAttributes.insert(attribute.index)
                }
            }
        }
        if let saved {
            let unchanged = object.changedAttributes.isEmpty && object.restatedAttributes.isEmpty
            state.updated[id] = unchanged ? nil : saved
        }
    }
}
