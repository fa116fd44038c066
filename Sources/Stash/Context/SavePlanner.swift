/// The context's part that turns its pending changes into one `StoreChangeSet`: the rows to
/// insert, update and delete per entity (in row order, so a save does the same thing every
/// time), the order entities are inserted in, the columns an update compares inside the
/// transaction, the rules the store follows when a row moved on (from the merge policy), and
/// the note other contexts merge once it commits. Duplicates in the context are settled
/// before it runs (`UniqueResolver`), and it changes no object.
final class SavePlanner: ContextPart {
    /// Fails the save if a new object of `state`'s entity lacks a required value.
    func checkRequiredValues(in state: EntityState) throws {
        let required = state.entity.attributes.filter { !$0.hasDefault }
        guard !required.isEmpty else { return }
        var slots = AttributeSet()
        for attribute in required { slots.insert(attribute.index) }
        for object in state.inserted where state.isLive(object) {
            // A new object's changed attribute holds a value (only a saved object's values are
            // ever cleared), so only one not given them all is read value by value: copying
            // each value out to compare it with nil cost 1.8k instructions an object (46M of a
            // 20,000-object import write, stash-bench under callgrind).
            if slots.subtracting(object.changedAttributes).isEmpty { continue }
            for attribute in required where object.value(of: attribute) == nil {
                var error = StashError(
                    .missingValue, "is required but was never set on \(Self.naming(object, of: state.entity))",
                    entity: state.entity.name, attribute: attribute.name)
                error.refusedObject = ObjectIdentifier(object)
                throw error
            }
        }
    }

    /// A new object as an error names it: by its unique values where it has them (text
    /// quoted, as the store's values are), which is all a placeholder made for a reference
    /// to an object not stored has (`"writer": 7`).
    static func naming(_ object: ManagedObject, of entity: EntityDescription) -> String {
        let named = entity.uniqueAttributes.compactMap { unique -> String? in
            guard let value = object.value(of: unique), let stored = try? unique.codec.storedValue(for: value),
                stored != .null
            else { return nil }
            return "\(unique.name) \(stored)"
        }
        guard !named.isEmpty else { return "a new object" }
        let onlyThat = entity.attributes.allSatisfy { attribute in
            attribute.isUnique || !object.changedAttributes.contains(attribute.index)
        }
        let name = "the new \(entity.name) with \(named.joined(separator: ", "))"
        guard onlyThat else { return name }
        return name + ", which has nothing else set (as a placeholder made for a reference to a "
            + "\(entity.name) not stored has, until a payload fills it in)"
    }

    /// Every pending change as stored values, per entity, and the objects behind them.
    func storeChanges() throws -> (StoreChangeSet, SavePlan) {
        let policy = context.policyInEffect
        var changes = StoreChangeSet()
        var plan = SavePlan()
        // Where each new object is among the inserts, for the relationships that point at it.
        let references = NewRowReferences(rows: changes.insertedRows)
        let rule: StoredMatchRule =
            switch policy.kind {
            case .incomingWins: .update
            case .storedWins: .keepStored
            case .fail: .fail
            }
        let lists = context.graph.listPlaces()
        for state in context.identity.states {
            let entity = state.entity
            var entityChanges = EntityChanges(entity: entity.schema)
            entityChanges.onStoredMatch = rule
            // In row order, so that a save does the same thing every time.
            let deleted = state.deleted.values.filter { $0.rowID != nil }.sorted { $0.rowID! < $1.rowID! }
            entityChanges.deletes = deleted.map { $0.rowID! }
            // Sorted by keys taken out first: comparing objects retains each of them, and a
            // registered object's retains take the runtime's slow path (its weak reference).
            // Each object's unverified attributes are taken with it: looked up again by object,
            // they cost a hash look-up and a copy of its saved state each.
            let updatedRows = state.updated.values.compactMap { saved -> (Int64, ManagedObject, AttributeSet)? in
                let object = saved.object
                guard object.state == .persisted, let rowID = object.rowID,
                    !object.changedAttributes.isEmpty || !object.restatedAttributes.isEmpty
                else { return nil }
                return (rowID, object, saved.unverified)
            }
            .sorted { $0.0 < $1.0 }
            let updated = updatedRows.map(\.1)
            entityChanges.updates.reserveCapacity(updated.count)
            let positionSlots = Self.slotsWithListPositions(of: entity)
            for (_, object, unverifiedSlots) in updatedRows {
                // Compared with the row inside the transaction: values set to what the
                // context last saw, or decoded for a row never loaded.
                let unverified = unverifiedSlots.intersection(object.changedAttributes)
                var columns = object.changedAttributes.union(object.restatedAttributes)
                var checked = unverified.union(object.restatedAttributes)
                if policy.writesWholeObjects {
                    // `.overwrite`: the rest of what the object has loaded, where the row differs.
                    let rest = AttributeSet.all(entity.attributes.count).subtracting(object.unloaded)
                        .subtracting(columns)
                    columns = columns.union(rest)
                    checked = checked.union(rest)
                }
                if !object.changedAttributes.subtracting(unverified).isEmpty {
                    // The row is written anyway, and SQLite rewrites a whole row for any
                    // UPDATE: what only may differ is written with it, unread. A relationship
                    // that keeps a list position is still compared, so that an object that
                    // did not move keeps its place.
                    checked = checked.intersection(positionSlots)
                }
                if !checked.isEmpty, !object.unloaded.isEmpty { entityChanges.updates.readsWholeRows = true }
                entityChanges.updates.append(rowID: object.rowID!, columns: columns, checked: checked)
            }
            let direct = entity.readsColumnDirectly
            if entityChanges.updates.readsWholeRows {
                entityChanges.updates.unloaded = { row in updated[row].unloaded }
            }
            entityChanges.updates.value = { row, column in
                let object = updated[row]
                if direct[column], let value = try? Self.storedValueInPlace(column, of: object) { return value }
                return try Self.storedValue(of: entity.attributes[column], in: object, references)
            }
            if policy.kind != .incomingWins {
                entityChanges.onConflict = policy.kind == .fail ? .fail : .keepStored
                let seen = updated.map { state.updated[ObjectIdentifier($0)]?.values }
                entityChanges.updates.expected = { row, column in
                    // What the object last saw: each changed attribute's value before its first
                    // change (`SavedValues`), kept in step with other contexts' saves by merging.
                    guard let values = seen[row], let value = values.value(atSlot: column, of: updated[row]) else {
                        return nil
                    }
                    return try? entity.attributes[column].codec.storedValue(for: value)
                }
            }
            let inserted = state.liveInserted
            entityChanges.inserts.reserveCapacity(inserted.count)
            for object in inserted {
                entityChanges.inserts.append(columns: object.changedAttributes)
            }
            entityChanges.inserts.value = { row, column in
                let object = inserted[row]
                if direct[column], let value = try? Self.storedValueInPlace(column, of: object) { return value }
                return try Self.storedValue(of: entity.attributes[column], in: object, references)
            }
            if let columns = lists.columns[entity.name] {
                entityChanges.inserts.position = { row, column in
                    ObjectGraph.insertPosition(of: inserted[row], column: column, columns, lists)
                }
            }
            changes.entities.append(entityChanges)
            plan.deleted.append(deleted)
            plan.updated.append(updated)
            plan.inserted.append(inserted)
        }
        for (position, inserted) in plan.inserted.enumerated() {
            for (row, object) in inserted.enumerated() {
                references.positions[ObjectIdentifier(object)] = (position, row)
            }
        }
        changes.insertOrder = insertOrder(plan)
        (changes.joinWrites, plan.joinLists) = context.graph.joinWrites(references)
        changes.positionWrites = context.graph.positionWrites(lists, references, updated: plan.updated)
        return (changes, plan)
    }

    /// The entities in the order their inserts are written: each after the entities its
    /// to-one relationships point at, so that their new rows' ids are known (a cycle is
    /// broken anywhere: the store writes such a value once every insert is done).
    func insertOrder(_ plan: SavePlan) -> [Int] {
        var order: [Int] = []
        var visiting = Set<Int>()
        var done = Set<Int>()
        let positions = Dictionary(
            uniqueKeysWithValues: context.identity.states.enumerated().map { (ObjectIdentifier($1.entity.type), $0) })
        func visit(_ position: Int) {
            guard !done.contains(position), visiting.insert(position).inserted else { return }
            for relationship in context.identity.states[position].entity.relationships where !relationship.isToMany {
                if let target = positions[ObjectIdentifier(relationship.targetType)], target != position {
                    visit(target)
                }
            }
            done.insert(position)
            order.append(position)
        }
        for position in context.identity.states.indices { visit(position) }
        return order
    }

    /// The slots of the to-one relationships whose lists keep their order in a position column.
    private static func slotsWithListPositions(of entity: EntityDescription) -> AttributeSet {
        var slots = AttributeSet()
        for relationship in entity.relationships where !relationship.isToMany {
            if let slot = relationship.slot, (try? relationship.positionColumn()) != nil { slots.insert(slot) }
        }
        return slots
    }

    /// The value at `slot` as stored, read from its wrapper where it is a plain type's
    /// (`EntityDescription.readsColumnDirectly`), so that it is never boxed on its way: boxing
    /// and unboxing cost about 1.4k instructions a row of stash-bench's import write. A value
    /// the type cannot store throws; the caller then takes the codec's way, whose error names
    /// the attribute.
    @inline(__always)
    private static func storedValueInPlace(_ slot: Int, of object: ManagedObject) throws -> StoredValue? {
        let layout = object.layout
        return try layout.fields[slot].access.storedValue(at: layout.wrapper(atSlot: slot, of: object))
    }

    /// An attribute's value as stored (NULL if never set), naming the attribute on failure.
    /// A relationship to a new object is its row id once the store has written it.
    private static func storedValue(
        of attribute: AttributeDescription, in object: ManagedObject, _ references: NewRowReferences
    ) throws -> StoredValue {
        // A to-one (a relationship's attribute is always one) read in its slot, not boxed and
        // taken out again (600 instructions an essay of stash-bench's graph import, callgrind).
        if attribute.isRelationship {
            let target = RelationshipTarget(of: object, atSlot: attribute.index)
            if case .object(let related) = target, related.resolved.rowID == nil || related.resolved.state == .inserted
            {
                return try newRowID(of: related.resolved, relatedTo: object, by: attribute, references)
            }
            return target.rowID.map(StoredValue.integer) ?? .null
        }
        guard let value = object.value(of: attribute) else { return .null }
        do {
            return try attribute.codec.storedValue(for: value)
        } catch var error as StashError {
            // The store names the entity; the attribute is known only here.
            error.attribute = error.attribute ?? attribute.name
            throw error
        }
    }

    /// The row id the store gave a new object a relationship of `object` names.
    private static func newRowID(
        of target: ManagedObject, relatedTo object: ManagedObject, by attribute: AttributeDescription,
        _ references: NewRowReferences
    ) throws -> StoredValue {
        guard let (entity, row) = references.positions[ObjectIdentifier(target)] else {
            throw StashError(
                .missingValue,
                "relates to a new \(target.entity.name) that is not in the context any more (deleted, or moved): "
                    + "set the relationship again or to nil",
                entity: object.entity.name, attribute: attribute.name)
        }
        guard let rowID = references.rows.rowID(entity: entity, row: row) else { throw UnwrittenRow() }
        return .integer(rowID)
    }

    /// What the save changed, by row id, for the other contexts.
    func note(for result: SaveResult, _ plan: SavePlan) -> SaveNote {
        var note = SaveNote(entities: [])
        for position in context.identity.states.indices {
            var entity = SaveNote.Entity()
            let stored = result.entity(at: position)
            let keptDeletes = stored.keptDeletes
            // A deletion the store kept (an edit waits for the row) is none; the row may hold
            // that edit, so merging contexts read it again.
            entity.deleted = plan.deleted[position].compactMap(\.rowID).filter { !keptDeletes.contains($0) }
            let unwritten = stored.unwrittenUpdates
            entity.updated = plan.updated[position].enumerated().compactMap { offset, object in
                unwritten.contains(offset) ? nil : object.rowID
            }
            entity.updated += keptDeletes
            // An object whose many-to-many list changed: its relationships changed.
            for owner in context.graph.listOwners.values
            where owner.state == .persisted && owner.entity === context.identity.states[position].entity {
                if let rowID = owner.rowID { entity.updated.append(rowID) }
            }
            for (offset, rowID) in stored.insertedRowIDs.enumerated() {
                if stored.matches[offset] == nil {
                    entity.inserted.append(rowID)
                } else {
                    entity.updated.append(rowID)
                }
            }
            // Each row once: a list owner may be an updated object too, and two new objects
            // may match one stored row (through different unique attributes).
            entity.updated = entity.updated.ascendingOnce()
            note.entities.append(entity)
        }
        return note
    }
}
