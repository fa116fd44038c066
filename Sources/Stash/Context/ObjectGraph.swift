/// The context's part that keeps its object graph: it finds the objects related rows
/// name, loads to-many lists (from foreign keys or join tables) and keeps them current,
/// applies delete rules, and, for the save, settles lists set without being read and plans
/// the join-table and list-position writes. Setting a relationship goes through
/// `RelationshipEditor`, which keeps inverses in step.
final class ObjectGraph: ContextPart {
    /// Bumped when objects may have changed under the context's to-many lists (another
    /// context's save merged, a rollback, a refresh, an undone decode): a list loaded before
    /// is loaded again when next read (see `relatedObjects(of:toMany:)`).
    var generation: UInt64 = 0
    /// The objects whose many-to-many or ordered one-to-many lists changed
    /// (`ManagedObject.changedLists`).
    var listOwners: [ObjectIdentifier: ManagedObject] = [:]
    /// One-to-many lists set without being read, whose dropped members the next save finds
    /// (`reconcileLists`).
    var unreconciledLists: [(owner: ManagedObject, index: Int)] = []
    /// Lists set or changed in this context since its last save, let go once it has saved
    /// (see `dropListsSetSinceSave`).
    var listsSetSinceSave: [(owner: ManagedObject, index: Int, list: ToManyList)] = []

    /// The context's object for a related row it does not hold (`IdentityMap.heldObject`
    /// found none):
    /// one loaded from the row; `nil` if the row is gone (another context or process deleted
    /// it) or cannot be read (the error is thrown by the next throwing call:
    /// `noteLoadFailure`).
    ///
    /// Read from `source`, an object a fetch answered beside others, a row not registered is
    /// loaded with the targets of the window of objects around `source`, which each keep
    /// theirs (`loadWindowTargets`): one query a window, where each target alone made one.
    func relatedObject(
        forRow rowID: Int64, of relationship: RelationshipDescription, from source: ManagedObject? = nil
    ) -> ManagedObject? {
        withContext { context in
            context.entering {
                guard let state = try? context.identity.state(forType: relationship.targetType) else { return nil }
                // Not loaded: the targets of the window around `source` are loaded with it, and
                // its neighbours keep theirs (a target the context holds is read by
                // `toOneTarget` without coming here, about what a window's pass costs it, so only
                // a miss loads one).
                if let source, source.fetchPlace != 0 {
                    loadWindowTargets(around: source, relationship, in: state)
                    if let object = state.byRowID[rowID] { return object.rowIsGone ? nil : object }
                }
                do {
                    var found: ManagedObject?
                    try context.container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs([rowID]))) {
                        row in
                        found = try context.materialize(row, in: state)
                    }
                    return found
                } catch {
                    context.noteLoadFailure(
                        error, reading: "the related \(relationship.targetName)", entity: relationship.entityName,
                        attribute: relationship.name)
                    return nil
                }
            }
        }
    }

    /// Whether `source`'s to-one relationship at `slot` names `target`, or may (not loaded).
    static func mayPoint(_ source: ManagedObject, _ slot: Int, at target: ManagedObject) -> Bool {
        guard source.layout.isSet(atSlot: slot, of: source) else { return source.unloaded.contains(slot) }
        switch RelationshipTarget(of: source, atSlot: slot) {
        case .none: return false
        case .object(let object): return object.resolved === target
        case .row(let rowID): return rowID == target.rowID
        }
    }

    func setTarget(_ target: ManagedObject?, of relationship: RelationshipDescription, in object: ManagedObject) {
        withContext { context in
            context.entering {
                if let target { adopt(target, for: relationship, of: object) }
                RelationshipEditor(context: context).setTarget(target, of: relationship, in: object)
            }
        }
    }

    func setObjects(_ objects: [ManagedObject], of relationship: RelationshipDescription, in object: ManagedObject) {
        withContext { context in
            context.entering {
                for target in objects { adopt(target, for: relationship, of: object) }
                guard case .toMany(let index) = relationship.kind else { return }
                if object.state == .persisted, Self.canSetUnread(relationship),
                    !(object.loadedList(index).map { $0.generation == generation } ?? false),
                    !object.changedLists.contains(index)
                {
                    // A stored object's one-to-many list, or the owning side's many-to-many list,
                    // not read yet (a re-imported parent with nested children, an issue with its
                    // labels): set without reading the old one; the save reads every such list at
                    // once (`reconcileLists`).
                    unreconciledLists.append((object, index))
                    RelationshipEditor(context: context).setObjects(objects, of: relationship, in: object, current: nil)
                    return
                }
                let current = relatedObjects(of: object, toMany: index)
                RelationshipEditor(context: context).setObjects(objects, of: relationship, in: object, current: current)
            }
        }
    }

    /// Whether a list of `relationship` can be set without reading the stored one: one kept
    /// by its inverse's column, or the owning side of a join table.
    private static func canSetUnread(_ relationship: RelationshipDescription) -> Bool {
        if let join = try? relationship.joinTable() { return join.isOwner }
        return (try? relationship.inverse())?.slot != nil
    }

    /// Before a save: the lists set without being read (`setObjects`), compared with the
    /// store, one query per relationship for all their owners. A one-to-many list's stored
    /// members it left out lose their owner (or are deleted: `deletesDroppedMembers()`); a many-to-many list the same as stored is no
    /// change (nothing written), and the related objects it left out leave their loaded
    /// inverse lists.
    func reconcileLists() throws {
        guard !unreconciledLists.isEmpty else { return }
        let pending = unreconciledLists
        var groups: [String: (RelationshipDescription, [ManagedObject])] = [:]
        for (owner, index) in pending where owner.managedObjectContext === context && owner.state == .persisted {
            let relationship = owner.entity.toManyRelationships[index]
            groups["\(owner.entity.name).\(relationship.name)", default: (relationship, [])].1.append(owner)
        }
        let editor = RelationshipEditor(context: context)
        for (relationship, owners) in groups.values {
            guard case .toMany(let index) = relationship.kind, let inverse = try relationship.inverse() else {
                if let join = try relationship.joinTable() { try reconcileJoined(owners, relationship, join) }
                continue
            }
            if let join = try relationship.joinTable() {
                try reconcileJoined(owners, relationship, join, inverse: inverse)
                continue
            }
            guard let slot = inverse.slot else { continue }
            let deletesDropped = relationship.deletesDroppedMembers()
            let stored = try objects(pointingAt: owners, through: inverse)
            for (owner, members) in zip(owners, stored) {
                let list = owner.loadedList(index)?.objects ?? []
                // The same members in the same order: no change (a re-import).
                if list.count == members.count, zip(list, members).allSatisfy({ $0 === $1 }) {
                    owner.changedLists.remove(index)
                    if owner.changedLists.isEmpty { listOwners[ObjectIdentifier(owner)] = nil }
                    continue
                }
                let kept = Set(list.map(ObjectIdentifier.init))
                for member in members where !kept.contains(ObjectIdentifier(member)) {
                    guard Self.mayPoint(member, slot, at: owner) else { continue }
                    if deletesDropped {
                        context.delete(member)
                    } else {
                        editor.setTarget(nil, of: inverse, in: member)
                    }
                }
            }
        }
        unreconciledLists = []
    }

    /// The owning side's many-to-many lists set without being read, against their join rows.
    private func reconcileJoined(
        _ owners: [ManagedObject], _ relationship: RelationshipDescription, _ join: JoinTable,
        inverse: RelationshipDescription? = nil
    ) throws {
        guard case .toMany(let index) = relationship.kind else { return }
        let pairs = try storedPairs(of: owners, join)
        for owner in owners where owner.changedLists.contains(index) {
            let list = owner.loadedList(index)?.objects ?? []
            let stored = pairs[owner.rowID!] ?? []
            if list.map(\.rowID) == stored.map(Optional.some), list.allSatisfy({ $0.state == .persisted }) {
                owner.changedLists.remove(index)
                if owner.changedLists.isEmpty { listOwners[ObjectIdentifier(owner)] = nil }
                continue
            }
            guard let inverse, case .toMany(let inverseIndex) = inverse.kind else { continue }
            let targetState = try context.identity.state(forType: relationship.targetType)
            let kept = Set(list.compactMap(\.rowID))
            for rowID in stored where !kept.contains(rowID) {
                guard let target = targetState.byRowID[rowID] else { continue }
                RelationshipEditor(context: context).list(of: target, inverseIndex)?.remove(owner)
            }
        }
    }

    /// The join rows of `owners` on `join`'s side: each owner's related row ids, in the
    /// owner's order (`position`) on the owning side. One query for any number of owners
    /// (their keys bound as one JSON parameter).
    func storedPairs(of owners: [ManagedObject], _ join: JoinTable) throws -> [Int64: [Int64]] {
        var pairs: [Int64: [Int64]] = [:]
        var query = StoreQuery(join.schema, columns: [join.ownColumn, join.relatedColumn])
        query.predicate = .isIn(.column(join.ownColumn), owners.compactMap(\.rowID).map(StoredValue.integer), .stored)
        query.sort = [
            QuerySort(
                column: join.isOwner ? JoinTable.positionColumn : JoinTable.ownerColumn, descending: false,
                ordering: .stored)
        ]
        try context.container.store.fetch(query) { row in
            if case .integer(let owner) = row.value(0), case .integer(let related) = row.value(1) {
                pairs[owner, default: []].append(related)
            }
        }
        return pairs
    }

    /// A related object joins the context of the object that names it, as SwiftData has it;
    /// one of another context cannot.
    private func adopt(_ target: ManagedObject, for relationship: RelationshipDescription, of object: ManagedObject) {
        guard type(of: target) == relationship.targetType || relationship.targetType == ManagedObject.self else {
            fatalError(
                "Stash: \(relationship.entityName).\(relationship.name) relates to \(relationship.targetName), "
                    + "not \(type(of: target))")
        }
        if target.managedObjectContext == nil, target.state == .transient {
            context.insert(target)
        }
        // `fatalError`, not `precondition`: release builds print its message too.
        if target.managedObjectContext !== context {
            fatalError(
                "Stash: \(relationship.entityName).\(relationship.name): \(target.entity.name) \(target.objectID) "
                    + "belongs to another context; use existingObject(with:) to get this context's object for it")
        }
    }

    /// The objects of `object`'s to-many relationship at `index`, in order: loaded once and
    /// kept until another context's save, a rollback or a refresh makes them stale.
    ///
    /// They are the rows whose inverse column names `object` (one query, on that column's
    /// index), with the context's unsaved changes: objects whose inverse was set to `object`
    /// join, in the order they were set; those set to another leave.
    func relatedObjects(of object: ManagedObject, toMany index: Int) -> [ManagedObject] {
        withContext { context in
            context.entering {
                let relationship = object.entity.toManyRelationships[index]
                // A changed many-to-many list is the truth until saved or rolled back.
                if let list = object.loadedList(index),
                    list.generation == generation || object.changedLists.contains(index)
                {
                    // An object set to another target while its own stored one was unknown (see
                    // `RelationshipEditor.setTarget`) may still be listed: it leaves now; so does
                    // a deleted one, here or by another context's save (its row is gone).
                    if let inverseSlot = try? relationship.inverse()?.slot {
                        list.objects.removeAll { !Self.mayPoint($0, inverseSlot, at: object) }
                    }
                    list.objects.removeAll { $0.state == .deleted || $0.rowIsGone }
                    return list.objects
                }
                do {
                    let objects = try loadRelatedObjects(of: object, relationship)
                    if let inverseSlot = try? relationship.inverse()?.slot {
                        for member in objects { member.nameByRow(object, inSlot: inverseSlot) }
                    }
                    let isJoinOwner = (try? relationship.joinTable())??.isOwner == true
                    object.keepList(
                        ToManyList(
                            objects, generation: generation,
                            storedRows: isJoinOwner ? Self.storedRows(of: objects) : nil),
                        at: index, loaded: true)
                    return objects
                } catch {
                    context.noteLoadFailure(
                        error, reading: "the related \(relationship.targetName) objects",
                        entity: relationship.entityName,
                        attribute: relationship.name)
                    return []
                }
            }
        }
    }

    private func loadRelatedObjects(of object: ManagedObject, _ relationship: RelationshipDescription) throws
        -> [ManagedObject]
    {
        if let join = try relationship.joinTable() { return try loadJoinedObjects(of: object, relationship, join) }
        guard let inverse = try relationship.inverse(), inverse.slot != nil else { return [] }
        return try objects(pointingAt: object, through: inverse)
    }

    /// The objects whose to-one relationship `incoming` names `object`: the stored rows whose
    /// column holds its row id (one query, on the column's index) with this context's unsaved
    /// changes applied, then the objects that point at it only in memory: saved ones in row
    /// order, then new ones in the order they were inserted.
    ///
    /// The stored rows come in row order, or in their list's order where the relationship
    /// keeps places (`RelationshipDescription.positionColumn()`); then a changed object stays
    /// in its stored place while it still points at `object`.
    func objects(pointingAt object: ManagedObject, through incoming: RelationshipDescription) throws
        -> [ManagedObject]
    {
        try objects(pointingAt: [object], through: incoming)[0]
    }

    /// `objects(pointingAt:through:)` for each of `owners`, with one query for them all.
    func objects(pointingAt owners: [ManagedObject], through incoming: RelationshipDescription) throws
        -> [[ManagedObject]]
    {
        guard let slot = incoming.slot else { return owners.map { _ in [] } }
        let state = try context.identity.state(forType: incoming.entityType)
        let pending = context.pendingObjects(in: state)
        let positionColumn = try incoming.positionColumn()
        let stored = owners.filter { $0.state != .inserted }
        let ownersByRow = Dictionary(stored.compactMap { owner in owner.rowID.map { ($0, owner) } }) { first, _ in
            first
        }
        var byOwner: [Int64: [ManagedObject]] = [:]
        if !ownersByRow.isEmpty {
            var query = StoreQuery(state.entity.schema)
            query.predicate =
                ownersByRow.count == 1
                ? .identical(.column(slot), .value(.integer(ownersByRow.keys.first!)), .stored)
                : .isIn(.column(slot), ownersByRow.keys.sorted().map(StoredValue.integer), .stored)
            query.listPosition = positionColumn
            query.excludedRowIDs =
                positionColumn == nil ? pending.excluded : state.deleted.values.compactMap(\.rowID).sorted()
            try context.container.store.fetch(query) { row in
                guard case .integer(let key) = row.value(slot), let owner = ownersByRow[key] else { return }
                let source = try context.materialize(row, in: state)
                if !source.hasChanges || (positionColumn != nil && Self.mayPoint(source, slot, at: owner)) {
                    byOwner[key, default: []].append(source)
                }
            }
        }
        let editor = RelationshipEditor(context: context)
        return owners.map { owner in
            let isStored = owner.rowID != nil && owner.state != .inserted
            var list = isStored ? byOwner[owner.rowID!] ?? [] : []
            var seen = Set(list.map(ObjectIdentifier.init))
            var others: [ManagedObject] = []
            for candidate in pending.candidates where !seen.contains(ObjectIdentifier(candidate)) {
                let target = RelationshipTarget(of: candidate, atSlot: slot)
                if editor.registered(target, of: incoming) === owner || (isStored && target.rowID == owner.rowID) {
                    seen.insert(ObjectIdentifier(candidate))
                    others.append(candidate)
                }
            }
            guard positionColumn != nil else {
                list += others
                list.sort { ManagedObjectContext.precedes($0, $1, by: [], insertionOrder: pending.insertionOrder) }
                return list
            }
            others.sort { ManagedObjectContext.precedes($0, $1, by: [], insertionOrder: pending.insertionOrder) }
            return list + others
        }
    }

    // MARK: Delete rules

    /// What deleting `object` does to its relationships, as their delete rules say: its own
    /// to-one relationships let go of their targets (deleting them for `.cascade`); the
    /// objects whose to-one relationship points at it lose it (`.nullify`), are deleted
    /// (`.cascade`), or stay for the save to refuse (`.deny`), as the rule of the relationship
    /// on its side (the inverse) says; with no inverse, they lose it.
    func applyDeleteRules(to object: ManagedObject) {
        let editor = RelationshipEditor(context: context)
        for relationship in object.entity.relationships where !relationship.isToMany {
            let slot = relationship.slot!
            let current = RelationshipTarget(of: object, atSlot: slot)
            let target =
                relationship.deleteRule == .cascade
                ? object.toOneTarget(atSlot: slot) : editor.registered(current, of: relationship)
            guard let target else { continue }
            switch try? relationship.inverse() {
            case let inverse? where inverse.isToMany:
                // Kept by a decode's journal first, as every list change is: the undo brings the
                // deleted object back, and the list it was in must hold it again.
                if case .toMany(let index) = inverse.kind, let list = editor.list(of: target, index) {
                    editor.journal(target, index)
                    list.remove(object)
                }
            case let inverse?:
                if editor.registered(RelationshipTarget(of: target, atSlot: inverse.slot!), of: inverse)
                    === object,
                    relationship.deleteRule != .cascade
                {
                    editor.setTarget(nil, of: inverse, in: target)
                }
            default:
                break
            }
            if relationship.deleteRule == .cascade { context.delete(target) }
        }
        // Many-to-many: the join rows go with the row (ON DELETE CASCADE); lists in memory
        // let go of it, or the related objects go too.
        for (index, relationship) in object.entity.toManyRelationships.enumerated() {
            guard (try? relationship.joinTable()) != nil else { continue }
            let related = relatedObjects(of: object, toMany: index)
            switch relationship.deleteRule {
            case .cascade:
                for target in related where target.state != .deleted { context.delete(target) }
            case .nullify:
                if let inverse = try? relationship.inverse(), case .toMany(let inverseIndex) = inverse.kind {
                    for target in related {
                        guard let list = target.loadedList(inverseIndex) else { continue }
                        editor.journal(target, inverseIndex)
                        list.remove(object)
                    }
                }
            case .deny, .noAction:
                break
            }
        }
        for incoming in context.container.incomingRelationships[ObjectIdentifier(type(of: object))] ?? [] {
            let rule = (try? incoming.inverse())?.deleteRule ?? .nullify
            guard rule == .nullify || rule == .cascade else { continue }
            let sources: [ManagedObject]
            do {
                sources = try objects(pointingAt: object, through: incoming)
            } catch {
                // The save must not go ahead without the delete rules: it throws this first.
                context.noteLoadFailure(
                    error, reading: "the \(incoming.entityName) objects that point at a deleted \(object.entity.name)",
                    entity: incoming.entityName, attribute: incoming.name)
                continue
            }
            for source in sources where source.state != .deleted {
                if rule == .cascade {
                    context.delete(source)
                } else {
                    editor.setTarget(nil, of: incoming, in: source)
                }
            }
        }
    }

    /// Throws `deleteDenied` if a deleted object still has related objects through a
    /// relationship whose rule is `.deny`.
    func checkDeniedDeletes(in state: EntityState) throws {
        for object in state.deleted.values {
            for relationship in object.entity.relationships
            where !relationship.isToMany && relationship.deleteRule == .deny {
                if let target = object.toOneTarget(atSlot: relationship.slot!), target.state != .deleted {
                    throw denied(object, relationship, 1, target.entity.name)
                }
            }
            for (index, relationship) in object.entity.toManyRelationships.enumerated()
            where relationship.deleteRule == .deny && (try? relationship.joinTable()) != nil {
                let remaining = relatedObjects(of: object, toMany: index).filter { $0.state != .deleted }
                if !remaining.isEmpty { throw denied(object, relationship, remaining.count, relationship.targetName) }
            }
            for incoming in context.container.incomingRelationships[ObjectIdentifier(type(of: object))] ?? [] {
                guard let inverse = try incoming.inverse(), inverse.deleteRule == .deny else { continue }
                let remaining = try objects(pointingAt: object, through: incoming).filter { $0.state != .deleted }
                if !remaining.isEmpty { throw denied(object, inverse, remaining.count, incoming.entityName) }
            }
        }
    }

    private func denied(
        _ object: ManagedObject, _ relationship: RelationshipDescription, _ count: Int, _ related: String
    )
        -> StashError
    {
        StashError(
            .deleteDenied,
            "\(object.objectID) cannot be deleted: its delete rule is .deny and it still relates to \(count) "
                + "\(related)\(count == 1 ? "" : " objects"); nothing was saved",
            entity: object.entity.name, attribute: relationship.name)
    }
}
