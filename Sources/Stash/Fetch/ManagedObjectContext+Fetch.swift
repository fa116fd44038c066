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
        try withLock {
            let state = try self.state(forType: T.self)
            let inMemoryOnly = descriptor.predicate != nil || !descriptor.sortBy.isEmpty || state.hasChanges
            var sql = state.entity.sql.selectAll + " ORDER BY \"_pk\""
            var parameters: [SQLValue] = []
            if !inMemoryOnly, descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
                sql += " LIMIT ? OFFSET ?"
                parameters = [
                    .integer(Int64(descriptor.fetchLimit ?? -1)), .integer(Int64(descriptor.fetchOffset ?? 0)),
                ]
            }
            // Gathered untyped and cast once: appending to a generic `[T]` looks up its
            // type metadata on every call.
            var found: [ManagedObject] = []
            try container.store.withConnection { connection in
                try connection.forEachRow(sql, parameters) { statement in
                    let object = try materialize(statement, in: state)
                    if object.state != .deleted { found.append(object) }
                }
            }
            if inMemoryOnly {
                found += state.inserted.lazy.filter { $0.state == .inserted }
            }
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

    /// How many objects `descriptor` describes, counted by SQLite without loading them
    /// (`SELECT count(*) FROM "Post"`). While the context has unsaved changes to the entity,
    /// or the descriptor has a predicate, it counts what `fetch` returns instead.
    public func fetchCount<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if descriptor.predicate != nil || descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            return try fetch(descriptor).count
        }
        return try withLock {
            let state = try self.state(forType: T.self)
            // Unsaved changes can add, remove or merge rows: count what a fetch would return.
            if state.hasChanges { return try fetch(descriptor).count }
            let entity = state.entity
            return try container.store.withConnection { Int(try $0.integer(entity.sql.count)) }
        }
    }

    /// The context's object for the current row: the registered one if there is one, a
    /// new object that matches the row's unique value, or a new instance filled from the row.
    private func materialize(_ statement: SQLiteStatement, in state: EntityState) throws -> ManagedObject {
        let rowID = statement.int64(0)
        if let object = state.byRowID[rowID] { return object }
        let entity = state.entity
        if !state.inserted.isEmpty {
            for (index, unique) in entity.uniqueAttributes.enumerated() {
                let key = statement.column(Int32(entity.attributeIndexBySlot[unique.slot] + 1))
                if key != .null, let pending = state.lookup(index, key, in: self), pending.state == .inserted {
                    let row = StoredRow(statement, columnCount: entity.attributes.count)
                    try adopt(row, as: pending, state: state, unique: unique, key: key)
                    return pending
                }
            }
        }
        let object = entity.type.init()
        object.attach(entity)
        let storage = object.storage
        let base = object.slotBase
        var column: Int32 = 1
        do {
            for attribute in entity.attributes {
                storage.values[base &+ attribute.slot] = try attribute.codec.read(statement, column: column)
                column &+= 1
            }
        } catch var error as StashError {
            error.entity = entity.name
            error.attribute = error.attribute ?? entity.attributes[Int(column) - 1].name
            throw error
        }
        registerPersisted(object, rowID: rowID, in: state)
        return object
    }

    /// A new, unsaved object turns out to have a stored row (same unique value): it becomes
    /// that row's object, keeping the values it was given under `.incomingWins`.
    private func adopt(
        _ row: StoredRow, as object: ManagedObject, state: EntityState, unique: AttributeDescription, key: SQLValue
    ) throws {
        let policy = mergePolicy.kind
        if policy == .fail { throw uniqueConflict(state.entity, unique, key) }
        var saved = object.values
        for attribute in state.entity.attributes {
            let stored = try row.value(of: attribute, in: state.entity)
            saved[object.slotBase + attribute.slot] = stored
            if policy == .storedWins || !object.changedSlots.contains(attribute.slot) {
                object.setPrimitiveValue(stored, of: attribute)
            }
        }
        if policy == .storedWins { object.changedSlots.removeAll() }
        registerPersisted(object, rowID: row.rowID, in: state)
        if !object.changedSlots.isEmpty {
            state.updated[ObjectIdentifier(object)] = (object, saved)
        }
    }
}

/// A stored row as read by `SELECT "_pk", <attributes> …`.
struct StoredRow {
    let rowID: Int64
    /// The attribute columns, in entity order.
    let columns: [SQLValue]

    init(_ statement: SQLiteStatement, columnCount: Int) {
        rowID = statement.int64(0)
        columns = (0..<columnCount).map { statement.column(Int32($0 + 1)) }
    }

    func value(of attribute: AttributeDescription, in entity: EntityDescription) throws -> Any {
        let index = entity.attributeIndexBySlot[attribute.slot]
        return try inPlace(entity, attribute) { try attribute.codec.value(from: columns[index]) }
    }
}
