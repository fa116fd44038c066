/// Composite unique constraints (`CompositeUniqueModel`): an object whose values together
/// match another object's, in the context or in the store, becomes a stand-in for it, as an
/// object with another's `.unique` value does.
extension UniqueResolver {
    /// The object of the context or the store that holds `object`'s values of a composite
    /// unique constraint, if another does; otherwise `object` becomes their holder.
    /// `targets` gives, by slot, related objects decoded but not yet set.
    ///
    /// At a save (`askingTheStore`), the store is asked again even for a key the object
    /// already holds: another context may have saved the same key since it was decoded.
    func compositeHolder(
        for object: ManagedObject, in state: EntityState, targets: [Int: ManagedObject] = [:],
        askingTheStore: Bool = false
    ) throws -> (holder: ManagedObject, constraint: Int)? {
        try withContext { context in
            var keys: [(Int, CompositeKey)] = []
            for (constraint, columns) in state.compositeUniques.enumerated() {
                guard let key = compositeKey(of: object, columns, in: state, targets: targets) else { continue }
                if let entry = state.compositeIndexes[constraint][key],
                    let holder = liveObject(entry, in: state, of: context),
                    compositeKey(of: holder, columns, in: state) == key
                {
                    // Another object holds the key. The object itself: the store was asked when
                    // it became the holder, and is asked again only at a save.
                    if holder !== object { return (holder, constraint) }
                    if !askingTheStore { continue }
                }
                // The stored row's object, unless its values moved to another key in memory.
                if let holder = try storedHolder(of: key, columns, in: state), holder !== object,
                    compositeKey(of: holder, columns, in: state) == key
                {
                    state.compositeIndexes[constraint][key] = .row(holder.rowID!)
                    return (holder, constraint)
                }
                keys.append((constraint, key))
            }
            for (constraint, key) in keys { state.setCompositeEntry(object, constraint, key) }
            return nil
        }
    }

    /// The values of `columns` in `object`: a related object by its row id once saved, by
    /// identity before; `nil` if any is nil (it then matches nothing).
    private func compositeKey(
        of object: ManagedObject, _ columns: [Int], in state: EntityState, targets: [Int: ManagedObject] = [:]
    ) -> CompositeKey? {
        var parts: [CompositeKey.Part] = []
        for column in columns {
            let attribute = state.entity.attributes[column]
            if attribute.isRelationship {
                let target =
                    targets[column].map(RelationshipTarget.object)
                    ?? RelationshipTarget(of: object, atSlot: column)
                switch target {
                case .none: return nil
                case .row(let rowID): parts.append(.value(.integer(rowID)))
                case .object(let related):
                    let related = related.resolved
                    if related.state == .persisted, let rowID = related.rowID {
                        parts.append(.value(.integer(rowID)))
                    } else {
                        parts.append(.object(ObjectIdentifier(related)))
                    }
                }
            } else {
                guard let value = object.loadedValue(of: attribute),
                    let stored = try? attribute.codec.storedValue(for: value), stored != .null
                else { return nil }
                parts.append(.value(stored))
            }
        }
        return CompositeKey(parts: parts)
    }

    private func liveObject(_ entry: UniqueEntry, in state: EntityState, of context: ManagedObjectContext)
        -> ManagedObject?
    {
        let object: ManagedObject?
        switch entry {
        case .queued(let queued): object = queued
        case .unsaved(let entry): object = entry.object
        case .row(let rowID): object = state.byRowID[rowID]
        }
        guard let object, object.managedObjectContext === context,
            object.state == .inserted || object.state == .persisted,
            !object.rowIsGone
        else { return nil }
        return object
    }

    /// The stored row whose columns hold `key` (one look-up on the constraint's unique
    /// index), as this context's object; none when a part names a new object.
    private func storedHolder(of key: CompositeKey, _ columns: [Int], in state: EntityState) throws -> ManagedObject? {
        var conditions: [QueryExpression] = []
        for (column, part) in zip(columns, key.parts) {
            guard case .value(let value) = part else { return nil }
            conditions.append(.identical(.column(column), .value(value), .stored))
        }
        var query = StoreQuery(state.entity.schema)
        query.predicate = .and(conditions)
        query.limit = 1
        var found: ManagedObject?
        try context.container.store.fetch(query) { row in found = try context.materialize(row, in: state) }
        guard let found, found.state == .persisted, !found.rowIsGone else { return nil }
        return found
    }

    /// Before a save: each new object whose constraint values another object holds stands
    /// in for it (under `.fail`, unless the object was inserted with a `UniqueMatch`, the
    /// save fails naming the constraint). First, new objects inserted with a `UniqueMatch`
    /// are matched by their single unique values again (`resolveExplicitMatches`): the
    /// save's one step that settles new objects against rows saved since. `undo` puts each
    /// back if the save fails after all.
    func resolveCompositeKeys(in state: EntityState, undo: inout [() -> Void]) throws {
        try resolveExplicitMatches(in: state, undo: &undo)
        guard !state.compositeUniques.isEmpty else { return }
        for object in state.inserted where state.isLive(object) {
            guard let (holder, constraint) = try compositeHolder(for: object, in: state, askingTheStore: true) else {
                continue
            }
            if object.uniqueMatch == nil, context.policyInEffect.kind == .fail {
                throw Self.compositeConflict(state, constraint)
            }
            standIn(object, for: holder, in: state, undo: &undo)
            // The lists that held the new object hold its holder now, in its place.
            let editor = RelationshipEditor(context: context)
            for relationship in state.entity.relationships where !relationship.isToMany {
                guard let inverse = try? relationship.inverse(), case .toMany(let index) = inverse.kind,
                    let target = editor.registered(
                        RelationshipTarget(of: holder, atSlot: relationship.slot!), of: relationship),
                    let list = editor.list(of: target, index),
                    let place = list.objects.firstIndex(where: { $0 === object })
                else { continue }
                let before = list.objects
                if list.contains(holder) {
                    list.objects.remove(at: place)
                } else {
                    list.objects[place] = holder
                }
                undo.append { list.objects = before }
            }
        }
    }

    /// Objects decoded nested in `owner`'s to-many list, whose composite key holds the
    /// inverse relationship (an entry nested in its feed names no feed): each is matched with
    /// the owner filled in, before the list is set, so a re-import finds the same objects.
    func resolveNested(_ objects: [ManagedObject], in owner: ManagedObject, through inverse: RelationshipDescription)
        throws -> [ManagedObject]
    {
        guard let slot = inverse.slot else { return objects }
        let state = try context.identity.state(forType: inverse.entityType)
        guard state.compositeUniques.contains(where: { $0.contains(slot) }) else { return objects }
        return try objects.map { object in
            guard object.state == .inserted, case .none = RelationshipTarget(of: object, atSlot: slot),
                let (holder, constraint) = try compositeHolder(for: object, in: state, targets: [slot: owner])
            else { return object }
            if context.policyInEffect.kind == .fail { throw Self.compositeConflict(state, constraint) }
            standIn(object, for: holder, in: state)
            return holder
        }
    }

    static func compositeConflict(_ state: EntityState, _ constraint: Int) -> StashError {
        let names = state.compositeUniques[constraint].map { state.entity.attributes[$0].name }
        return StashError(
            .uniqueConflict,
            "(\(names.joined(separator: ", "))) together are already taken and the merge policy is .fail",
            entity: state.entity.name, attribute: names[0])
    }
}
