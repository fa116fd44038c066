extension ManagedObjectContext {
    /// Writes every insert, update and delete in one SQLite transaction.
    ///
    /// Before writing, objects that share a unique value are merged into one (see
    /// `MergePolicy`), and new objects are matched against stored rows with one query per
    /// batch of unique values: a match updates that row instead of inserting another. If
    /// anything fails (a required attribute never set, a constraint, the disk), nothing
    /// is written, the error says what and where, and the context keeps its changes.
    public func save() throws {
        try withLock {
            guard states.contains(where: \.hasChanges) else { return }
            for state in states {
                try mergeDuplicateInserts(in: state)
                try validateRequiredValues(in: state)
            }
            var outcome = SaveOutcome()
            try container.store.write { connection in
                for state in states {
                    try annotating(state.entity) { try writeDeletes(of: state, connection, &outcome) }
                }
                for state in states {
                    try annotating(state.entity) { try writeUpdates(of: state, connection, &outcome) }
                }
                for state in states {
                    try annotating(state.entity) { try writeInserts(of: state, connection, &outcome) }
                }
            }
            apply(outcome)
        }
    }

    /// What a save did, applied to the objects only once the transaction has committed,
    /// so a failed save leaves every object as it was.
    struct SaveOutcome {
        var deleted: [(ManagedObject, EntityState)] = []
        var updated: [ManagedObject] = []
        var inserted: [(ManagedObject, Int64, EntityState)] = []
        /// New objects matched to a stored row: the row's key and the stored values of the
        /// attributes the object did not set (all of them under `.storedWins`).
        var merged: [(ManagedObject, Int64, EntityState, [(AttributeDescription, Any)])] = []
    }

    // MARK: Before the transaction

    /// Merges new objects whose unique value another live object of the context holds
    /// into that object (which the unique index names: the first one seen).
    private func mergeDuplicateInserts(in state: EntityState) throws {
        guard !state.entity.uniqueAttributes.isEmpty else { return }
        for object in state.inserted where object.state == .inserted {
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index) else { continue }
                guard let holder = state.lookup(index, key, in: self) else {
                    state.uniqueIndexes[index][key] = object
                    continue
                }
                guard holder !== object else { continue }
                try merge(object, into: holder, state: state, attribute: state.entity.uniqueAttributes[index], key: key)
                break
            }
        }
    }

    private func merge(
        _ object: ManagedObject, into holder: ManagedObject, state: EntityState, attribute: AttributeDescription,
        key: SQLValue
    ) throws {
        switch mergePolicy.kind {
        case .fail:
            throw uniqueConflict(state.entity, attribute, key)
        case .incomingWins:
            for candidate in state.entity.attributes where object.changedSlots.contains(candidate.slot) {
                if let value = object.value(of: candidate) {
                    holder.setValue(value, of: candidate)
                }
            }
        case .storedWins:
            break
        }
        object.state = .transient
        object.managedObjectContext = nil
    }

    func uniqueConflict(_ entity: EntityDescription, _ attribute: AttributeDescription, _ key: SQLValue)
        -> StashError
    {
        StashError(
            .uniqueConflict, "the value \(key) is already taken and the merge policy is .fail",
            entity: entity.name, attribute: attribute.name)
    }

    private func validateRequiredValues(in state: EntityState) throws {
        let required = state.entity.attributes.filter { !$0.hasDefault }
        guard !required.isEmpty else { return }
        for object in state.inserted where object.state == .inserted {
            for attribute in required where object.value(of: attribute) == nil {
                throw StashError(
                    .missingValue, "is required but was never set on a new object",
                    entity: state.entity.name, attribute: attribute.name)
            }
        }
    }

    // MARK: In the transaction

    private func writeDeletes(of state: EntityState, _ connection: SQLiteConnection, _ outcome: inout SaveOutcome)
        throws
    {
        guard !state.deleted.isEmpty else { return }
        let statement = try connection.statement(state.entity.sql.deleteByKey)
        for object in state.deleted.values {
            guard let rowID = object.rowID else { continue }
            try statement.run([.integer(rowID)])
            outcome.deleted.append((object, state))
        }
    }

    private func writeUpdates(of state: EntityState, _ connection: SQLiteConnection, _ outcome: inout SaveOutcome)
        throws
    {
        for (object, _) in state.updated.values where object.state == .persisted {
            guard let rowID = object.rowID, !object.changedSlots.isEmpty else { continue }
            try update(object, rowID: rowID, changing: object.changedSlots, state, connection)
            outcome.updated.append(object)
        }
    }

    /// `UPDATE … SET <changed columns> WHERE "_pk" = ?`.
    private func update(
        _ object: ManagedObject, rowID: Int64, changing slots: SlotSet, _ state: EntityState,
        _ connection: SQLiteConnection
    ) throws {
        let attributes = state.entity.attributes.filter { slots.contains($0.slot) }
        guard !attributes.isEmpty else { return }
        let sql = container.store.updateSQL(for: state.entity, changing: slots, attributes)
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        for (offset, attribute) in attributes.enumerated() {
            try statement.bind(try sqlValue(of: attribute, in: object), at: Int32(offset + 1))
        }
        try statement.bind(.integer(rowID), at: Int32(attributes.count + 1))
        while try statement.step() {}
    }

    private func writeInserts(of state: EntityState, _ connection: SQLiteConnection, _ outcome: inout SaveOutcome)
        throws
    {
        var pending = state.liveInserted
        guard !pending.isEmpty else { return }
        if !state.entity.uniqueAttributes.isEmpty {
            pending = try resolveStoredMatches(of: pending, state, connection, &outcome)
        }
        let entity = state.entity
        let statement = try connection.statement(entity.sql.insert)
        defer { statement.reset() }
        for object in pending {
            statement.reset()
            for (offset, attribute) in entity.attributes.enumerated() {
                try statement.bind(try sqlValue(of: attribute, in: object), at: Int32(offset + 1))
            }
            while try statement.step() {}
            outcome.inserted.append((object, connection.lastInsertedRowID, state))
        }
    }

    /// Finds the stored rows that new objects' unique values already name, one query per
    /// batch of values, and turns each match into an update of that row (or, under
    /// `.storedWins`, into nothing). Returns the objects that really are new.
    private func resolveStoredMatches(
        of objects: [ManagedObject], _ state: EntityState, _ connection: SQLiteConnection,
        _ outcome: inout SaveOutcome
    ) throws -> [ManagedObject] {
        var unmatched = objects
        for (index, unique) in state.entity.uniqueAttributes.enumerated() {
            let rows = try storedRows(
                matching: unmatched.compactMap { state.uniqueKey(of: $0, index) }, unique, state.entity, connection)
            guard !rows.isEmpty else { continue }
            var stillUnmatched: [ManagedObject] = []
            for object in unmatched {
                guard let key = state.uniqueKey(of: object, index), let row = rows[key] else {
                    stillUnmatched.append(object)
                    continue
                }
                let rowID = row.rowID
                if let registered = state.byRowID[rowID], registered !== object {
                    throw uniqueConflict(state.entity, unique, key)
                }
                var stored: [(AttributeDescription, Any)] = []
                switch mergePolicy.kind {
                case .fail:
                    throw uniqueConflict(state.entity, unique, key)
                case .incomingWins:
                    try update(object, rowID: rowID, changing: object.changedSlots, state, connection)
                    for attribute in state.entity.attributes where !object.changedSlots.contains(attribute.slot) {
                        stored.append((attribute, try row.value(of: attribute, in: state.entity)))
                    }
                case .storedWins:
                    for attribute in state.entity.attributes {
                        stored.append((attribute, try row.value(of: attribute, in: state.entity)))
                    }
                }
                outcome.merged.append((object, rowID, state, stored))
            }
            unmatched = stillUnmatched
        }
        return unmatched
    }

    /// Stored rows whose `attribute` is one of `keys`, by that value.
    func storedRows(
        matching keys: [SQLValue], _ attribute: AttributeDescription, _ entity: EntityDescription,
        _ connection: SQLiteConnection
    ) throws -> [SQLValue: StoredRow] {
        guard let column = entity.attributes.firstIndex(where: { $0 === attribute }) else { return [:] }
        var rows: [SQLValue: StoredRow] = [:]
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(start + uniqueBatchSize, keys.count)])
            start += batch.count
            try connection.forEachRow(entity.sql.selectWhere(attribute, in: batch.count), batch) { statement in
                let row = StoredRow(statement, columnCount: entity.attributes.count)
                rows[row.columns[column]] = row
            }
        }
        return rows
    }

    private func sqlValue(of attribute: AttributeDescription, in object: ManagedObject) throws -> SQLValue {
        guard let value = object.value(of: attribute) else { return .null }
        do {
            return try attribute.codec.sqlValue(for: value)
        } catch var error as StashError {
            error.entity = error.entity ?? object.entity.name
            error.attribute = error.attribute ?? attribute.name
            throw error
        }
    }

    private func annotating(_ entity: EntityDescription, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch var error as StashError {
            error.entity = error.entity ?? entity.name
            throw error
        }
    }

    // MARK: After the commit

    private func apply(_ outcome: SaveOutcome) {
        for (object, state) in outcome.deleted {
            if let rowID = object.rowID { state.byRowID[rowID] = nil }
            object.state = .transient
            object.managedObjectContext = nil
            object.changedSlots.removeAll()
        }
        for object in outcome.updated {
            object.changedSlots.removeAll()
        }
        for (object, rowID, state) in outcome.inserted {
            object.rowID = rowID
            object.state = .persisted
            object.changedSlots.removeAll()
            state.byRowID[rowID] = object
        }
        for (object, rowID, state, stored) in outcome.merged {
            for (attribute, value) in stored {
                object.setPrimitiveValue(value, of: attribute)
            }
            object.rowID = rowID
            object.state = .persisted
            object.changedSlots.removeAll()
            state.byRowID[rowID] = object
            state.index(object, in: self)
        }
        for state in states {
            state.inserted.removeAll()
            state.updated.removeAll()
            state.deleted.removeAll()
        }
    }
}

/// How many unique values one lookup query binds: well under SQLite's parameter limit.
let uniqueBatchSize = 500

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
        do {
            return try attribute.codec.value(from: columns[index])
        } catch var error as StashError {
            error.entity = entity.name
            error.attribute = attribute.name
            throw error
        }
    }
}
