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
            // Merging duplicates changes objects before anything is written: if the save
            // fails, `undo` puts them back, so the context is left as it was.
            var undo: [() -> Void] = []
            var outcome = SaveOutcome()
            do {
                for state in states {
                    try mergeDuplicateInserts(in: state, undo: &undo)
                    try validateRequiredValues(in: state)
                }
                try container.store.write { connection in
                    for state in states {
                        try inPlace(state.entity) { try writeDeletes(of: state, connection, &outcome) }
                    }
                    for state in states {
                        try inPlace(state.entity) { try writeUpdates(of: state, connection, &outcome) }
                    }
                    for state in states {
                        try inPlace(state.entity) { try writeInserts(of: state, connection, &outcome) }
                    }
                }
            } catch {
                for step in undo.reversed() { step() }
                throw error
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
    private func mergeDuplicateInserts(in state: EntityState, undo: inout [() -> Void]) throws {
        guard state.mayHoldDuplicates else { return }
        undo.append { state.mayHoldDuplicates = true }
        for object in state.inserted where object.state == .inserted {
            for index in state.entity.uniqueAttributes.indices {
                guard let key = state.uniqueKey(of: object, index) else { continue }
                guard let holder = state.lookup(index, key, in: self) else {
                    state.uniqueIndexes[index][key] = object
                    continue
                }
                guard holder !== object else { continue }
                try merge(
                    object, into: holder, state: state, attribute: state.entity.uniqueAttributes[index], key: key,
                    undo: &undo)
                break
            }
        }
        state.mayHoldDuplicates = false
    }

    private func merge(
        _ object: ManagedObject, into holder: ManagedObject, state: EntityState, attribute: AttributeDescription,
        key: SQLValue, undo: inout [() -> Void]
    ) throws {
        let holderValues = holder.values
        let holderChanges = holder.changedSlots
        let holderWasUpdated = state.updated[ObjectIdentifier(holder)] != nil
        undo.append { [self] in
            holder.values = holderValues
            holder.changedSlots = holderChanges
            if !holderWasUpdated { state.updated[ObjectIdentifier(holder)] = nil }
            object.state = .inserted
            object.managedObjectContext = self
        }
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

    func uniqueConflict(
        _ entity: EntityDescription, _ attribute: AttributeDescription, _ key: SQLValue,
        _ reason: String = "is already taken and the merge policy is .fail"
    ) -> StashError {
        StashError(.uniqueConflict, "the value \(key) \(reason)", entity: entity.name, attribute: attribute.name)
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
        var updater = RowUpdater(entity: state.entity)
        defer { updater.finish() }
        // In row order, so that a save does the same thing every time.
        let objects = state.updated.values.map(\.object).sorted { ($0.rowID ?? 0) < ($1.rowID ?? 0) }
        for object in objects where object.state == .persisted {
            guard let rowID = object.rowID, !object.changedSlots.isEmpty else { continue }
            try updater.update(object, rowID: rowID, changing: object.changedSlots, in: self, connection)
            outcome.updated.append(object)
        }
    }

    private func writeInserts(of state: EntityState, _ connection: SQLiteConnection, _ outcome: inout SaveOutcome)
        throws
    {
        var pending = state.liveInserted
        guard !pending.isEmpty else { return }
        let entity = state.entity
        if !entity.uniqueAttributes.isEmpty, try connection.integer(entity.sql.anyRow) != 0 {
            pending = try resolveStoredMatches(of: pending, state, connection, &outcome)
        }
        let statement = try connection.statement(entity.sql.insert)
        defer { statement.reset() }
        for object in pending {
            statement.rewind()
            for (offset, attribute) in entity.attributes.enumerated() {
                try bind(attribute, of: object, to: statement, at: Int32(offset + 1))
            }
            while try statement.step() {}
            outcome.inserted.append((object, connection.lastInsertedRowID, state))
        }
    }

    /// Finds the stored rows that new objects' unique values already name, one query per
    /// batch of values, and turns each match into an update of that row (or, under
    /// `.storedWins`, into nothing). Returns the objects that really are new.
    ///
    /// The query reads only the key and the columns the matched objects need back: under
    /// `.incomingWins`, the attributes an object was not given keep their stored values.
    private func resolveStoredMatches(
        of objects: [ManagedObject], _ state: EntityState, _ connection: SQLiteConnection,
        _ outcome: inout SaveOutcome
    ) throws -> [ManagedObject] {
        let entity = state.entity
        var unmatched = objects
        var updater = RowUpdater(entity: entity)
        defer { updater.finish() }
        for (index, unique) in entity.uniqueAttributes.enumerated() {
            let wanted: [AttributeDescription]
            switch mergePolicy.kind {
            case .fail: wanted = []
            case .storedWins: wanted = entity.attributes
            case .incomingWins:
                wanted = entity.attributes.filter { attribute in
                    unmatched.contains { !$0.changedSlots.contains(attribute.slot) }
                }
            }
            let keys = unmatched.compactMap { state.uniqueKey(of: $0, index) }
            let rows = try storedRows(matching: keys, unique, reading: wanted, entity, connection)
            guard !rows.isEmpty else { continue }
            var stillUnmatched: [ManagedObject] = []
            for object in unmatched {
                guard let key = state.uniqueKey(of: object, index), let row = rows[key] else {
                    stillUnmatched.append(object)
                    continue
                }
                if mergePolicy.kind == .fail { throw uniqueConflict(entity, unique, key) }
                if let registered = state.byRowID[row.rowID], registered !== object {
                    throw uniqueConflict(
                        entity, unique, key, "belongs to a stored row this context holds as another object")
                }
                var stored: [(AttributeDescription, Any)] = []
                for (attribute, value) in zip(wanted, row.values)
                where mergePolicy.kind == .storedWins || !object.changedSlots.contains(attribute.slot) {
                    stored.append(
                        (attribute, try inPlace(entity, attribute) { try attribute.codec.value(from: value) }))
                }
                if mergePolicy.kind == .incomingWins {
                    // The row was found by this value: setting it again would only make
                    // SQLite rewrite the unique index entry.
                    var changed = object.changedSlots
                    changed.remove(unique.slot)
                    try updater.update(object, rowID: row.rowID, changing: changed, in: self, connection)
                }
                outcome.merged.append((object, row.rowID, state, stored))
            }
            unmatched = stillUnmatched
        }
        return unmatched
    }

    /// Stored rows whose `unique` attribute is one of `keys`, by that value, with the
    /// values of `wanted` in order.
    private func storedRows(
        matching keys: [SQLValue], _ unique: AttributeDescription, reading wanted: [AttributeDescription],
        _ entity: EntityDescription, _ connection: SQLiteConnection
    ) throws -> [SQLValue: MatchedRow] {
        var rows: [SQLValue: MatchedRow] = [:]
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(start + uniqueBatchSize, keys.count)])
            start += batch.count
            let sql = entity.sql.select(wanted, where: unique, in: batch.count)
            try connection.forEachRow(sql, batch) { statement in
                let values = (0..<wanted.count).map { statement.column(Int32($0 + 2)) }
                rows[statement.column(1)] = MatchedRow(rowID: statement.int64(0), values: values)
            }
        }
        return rows
    }

    /// Binds an attribute's value (NULL if never set), naming the attribute on failure.
    func bind(
        _ attribute: AttributeDescription, of object: ManagedObject, to statement: SQLiteStatement, at index: Int32
    ) throws {
        try inPlace(object.entity, attribute) {
            guard let value = object.value(of: attribute) else { return try statement.bind(.null, at: index) }
            try attribute.codec.bind(value, to: statement, at: index)
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
        for state in states where !state.inserted.isEmpty {
            state.byRowID.reserveCapacity(state.byRowID.count + state.inserted.count)
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
            for object in state.inserted { object.isQueuedForInsert = false }
            state.inserted.removeAll()
            state.updated.removeAll()
            state.deleted.removeAll()
        }
    }
}

/// How many unique values one lookup query binds: well under SQLite's parameter limit.
let uniqueBatchSize = 500

/// A stored row found by its unique value: its key and the columns asked for.
private struct MatchedRow {
    let rowID: Int64
    let values: [SQLValue]
}
