import Foundation

extension ManagedObjectContext {
    /// The objects `descriptor` describes, as the context sees them: stored rows, with
    /// this context's unsaved inserts, changes and deletions applied.
    ///
    /// Each row comes back as the context's one instance for it: fetching twice returns
    /// the same objects (`===`), and an object already in the context keeps its values.
    ///
    /// ```sql
    /// SELECT "_pk", "id", "title" FROM "Post" ORDER BY "_pk"
    /// ```
    ///
    /// Predicates and sort descriptors are evaluated in memory over the entity's rows for
    /// now; SQL translation is the job of its own change.
    public func fetch<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try entering {
            let state = try self.state(forType: T.self)
            let inMemoryOnly = descriptor.predicate != nil || !descriptor.sortBy.isEmpty || state.hasChanges
            var query = StoreQuery(state.entity.schema)
            if !inMemoryOnly {
                query.limit = descriptor.fetchLimit
                query.offset = descriptor.fetchOffset
            }
            // Gathered untyped and cast once: appending to a generic `[T]` looks up its
            // type metadata on every call.
            var found: [ManagedObject] = []
            try container.store.fetch(query) { row in
                let object = try materialize(row, in: state)
                if object.state != .deleted { found.append(object) }
            }
            if inMemoryOnly {
                found += state.inserted.lazy.filter(state.isLive)
            }
            // Unchecked cast: every object of T's entity state is exactly a T (made by
            // `T.init()` or inserted as one); `as!` would check each one again.
            var objects = found.map { unsafeDowncast($0, to: T.self) }
            guard inMemoryOnly else { return objects }
            if let predicate = descriptor.predicate {
                objects = try objects.filter { try predicate.evaluate($0) }
            }
            if !descriptor.sortBy.isEmpty {
                objects.sort(using: descriptor.sortBy)
            }
            let offset = min(max(descriptor.fetchOffset ?? 0, 0), objects.count)
            let end = descriptor.fetchLimit.map { min(offset + max($0, 0), objects.count) } ?? objects.count
            return Array(objects[offset..<end])
        }
    }

    /// How many objects `descriptor` describes, counted by the store without loading them
    /// (`SELECT count(*) FROM "Post"`). While the context has unsaved changes to the entity,
    /// or the descriptor has a predicate, it counts what `fetch` returns instead.
    public func fetchCount<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if descriptor.predicate != nil || descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            return try fetch(descriptor).count
        }
        return try entering {
            let state = try self.state(forType: T.self)
            // Unsaved changes can add, remove or merge rows: count what a fetch would return.
            if state.hasChanges { return try fetch(descriptor).count }
            return try container.store.count(StoreQuery(state.entity.schema))
        }
    }

    /// The context's object for the current row: the registered one if there is one, a
    /// new object that matches the row's unique value, or a new instance filled from the row.
    func materialize(_ row: any StoreRow, in state: EntityState) throws -> ManagedObject {
        let rowID = row.rowID
        if let object = state.byRowID[rowID] {
            // An object decoded for this row may not have loaded it yet: the row is here.
            if !object.unloaded.isEmpty || state.updated[ObjectIdentifier(object)]?.unverified.isEmpty == false {
                try fill(object, from: row, in: state)
            }
            return object
        }
        let entity = state.entity
        if !state.inserted.isEmpty {
            for (index, unique) in entity.uniqueAttributes.enumerated() {
                let key = row.value(unique.index)
                if key != .null, let pending = state.lookup(index, key, in: self), pending.state == .inserted {
                    try adopt(
                        StoredRow(row, columnCount: entity.attributes.count), as: pending, state: state, unique: unique,
                        key: key)
                    return pending
                }
            }
        }
        let object = entity.type.init()
        object.cachedEntity = entity
        let storage = object.storage
        var column = 0
        do {
            for attribute in entity.attributes {
                storage.values[column] = try attribute.codec.read(row, column: column)
                column &+= 1
            }
        } catch var error as StashError {
            error.entity = entity.name
            error.attribute = error.attribute ?? entity.attributes[column].name
            throw error
        }
        registerPersisted(object, rowID: rowID, in: state)
        return object
    }

    /// A new, unsaved object turns out to have a stored row (same unique value): it becomes
    /// that row's object, keeping the values it was given under `.incomingWins`.
    private func adopt(
        _ row: StoredRow, as object: ManagedObject, state: EntityState, unique: AttributeDescription, key: StoredValue
    ) throws {
        let policy = mergePolicy.kind
        if policy == .fail { throw uniqueConflict(state.entity, unique, key) }
        var saved = object.values
        for attribute in state.entity.attributes {
            let stored = try row.value(of: attribute, in: state.entity)
            saved[attribute.index] = stored
            if policy == .storedWins || !object.changedAttributes.contains(attribute.index) {
                object.setPrimitiveValue(stored, of: attribute)
            }
        }
        if policy == .storedWins { object.changedAttributes.removeAll() }
        registerPersisted(object, rowID: row.rowID, in: state)
        if !object.changedAttributes.isEmpty {
            state.updated[ObjectIdentifier(object)] = SavedState(
                object: object, values: saved, unloaded: AttributeSet())
        }
    }
}

/// A stored row's values, copied out of the store's row.
struct StoredRow {
    let rowID: Int64
    /// The attribute columns, in entity order.
    let columns: [StoredValue]

    init(_ row: any StoreRow, columnCount: Int) {
        rowID = row.rowID
        columns = (0..<columnCount).map { row.value($0) }
    }

    func value(of attribute: AttributeDescription, in entity: EntityDescription) throws -> Any {
        try inPlace(entity, attribute) { try attribute.codec.value(from: columns[attribute.index]) }
    }
}
