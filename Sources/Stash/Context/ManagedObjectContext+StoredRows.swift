extension ManagedObjectContext {
    /// The context's object for the stored row that holds `key` in the `index`th unique
    /// attribute, made (partly loaded) if the context has none; `nil` if no row holds it, or
    /// the row's object moved to another value in memory.
    func storedObject(for key: StoredValue, unique index: Int, in state: EntityState) throws -> ManagedObject? {
        let entity = state.entity
        let unique = entity.uniqueAttributes[index]
        guard
            let rowID = try state.storedKeys[index].rowID(
                for: key, column: unique.index, of: entity.schema, in: container)
        else { return nil }
        if let registered = state.byRowID[rowID] {
            return registered.unloaded.contains(unique.index) && registered.state == .persisted ? registered : nil
        }
        let object = entity.type.init()
        object.cachedEntity = entity
        object.setPrimitiveValue(try unique.codec.value(from: key), of: unique)
        adoptRow(rowID, as: object, matchedBy: unique, key: key, at: index, changing: AttributeSet(), in: state)
        return object
    }

    /// Makes `object` the context's object for stored row `rowID`, whose `unique` attribute
    /// holds `key` (the object holds it too). The attributes in `changed` hold new values,
    /// changes not yet compared with the row; every other attribute is loaded from the row
    /// when read (see `fulfill`).
    func adoptRow(
        _ rowID: Int64, as object: ManagedObject, matchedBy unique: AttributeDescription, key: StoredValue,
        at matchedIndex: Int, changing changed: AttributeSet, in state: EntityState
    ) {
        let entity = state.entity
        var unknown = AttributeSet.all(entity.attributes.count)
        unknown.remove(unique.index)
        var changed = changed
        changed.remove(unique.index)
        for attribute in entity.attributes where unknown.contains(attribute.index) && !changed.contains(attribute.index)
        {
            object.setPrimitiveValue(nil, of: attribute)
        }
        object.unloaded = unknown.subtracting(changed)
        object.changedAttributes = changed
        registerPersisted(object, rowID: rowID, in: state, indexed: false)
        state.partial.append(rowID)
        if !changed.isEmpty {
            state.updated[ObjectIdentifier(object)] = SavedState(
                object: object, values: nil, unloaded: unknown, unverified: changed)
        }
        state.setEntry(object, matchedIndex, key)
        if entity.uniqueAttributes.count > 1 { state.index(object, in: self) }
    }
}
