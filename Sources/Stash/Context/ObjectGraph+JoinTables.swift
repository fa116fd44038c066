/// Many-to-many relationships: their pairs live in a join table (see
/// `RelationshipDescription.joinTable()`); a list is read from it when first asked for, and
/// the next save writes what the owning side's changed lists changed since they were read
/// (`ToManyList.storedRows`), so two writers' changes to one list both survive.
extension ObjectGraph {
    /// Records that the list of `object` at `index` changed: a many-to-many owning side's
    /// pairs, or a one-to-many list's order.
    func markListChanged(_ object: ManagedObject, _ index: Int) {
        if let list = object.toManyLists?[index] { dropAfterSave(list, of: object, at: index) }
        guard object.changedLists.insert(index).inserted else { return }
        listOwners[ObjectIdentifier(object)] = object
    }

    /// Keeps `list`, set or changed in this context, to let go after the next save.
    func dropAfterSave(_ list: ToManyList, of owner: ManagedObject, at index: Int) {
        guard !list.awaitsDrop else { return }
        list.awaitsDrop = true
        listsSetSinceSave.append((owner, index, list))
    }

    /// After a save or a rollback, objects of this context let go of the lists set or changed
    /// since: a list holds its members and each member's inverse to-one holds the list's
    /// owner, so a graph an app imported and let go would otherwise stay in memory, with its
    /// context, until `reset()`. A list let go is read again from the store when next asked
    /// for (one query). Lists loaded by reading are kept, as Core Data keeps them: a prefetch
    /// or a loop over a list reads it once.
    func dropListsSetSinceSave() {
        guard !listsSetSinceSave.isEmpty else { return }
        let lists = listsSetSinceSave
        listsSetSinceSave = []
        for (owner, index, list) in lists {
            list.awaitsDrop = false
            guard owner.managedObjectContext === context, owner.toManyLists?[index] === list else { continue }
            owner.toManyLists![index] = nil
        }
    }

    /// Forgets the changed lists: after a save wrote them, or a rollback dropped them.
    func forgetChangedLists() {
        for object in listOwners.values { object.changedLists.removeAll() }
        listOwners.removeAll()
        unreconciledLists.removeAll()
    }

    /// The objects a many-to-many list of a stored object holds: its join rows (in `position`
    /// order on the owning side, in the owners' row order on the other), with this context's
    /// unsaved lists applied, deleted objects left out.
    func loadJoinedObjects(of object: ManagedObject, _ relationship: RelationshipDescription, _ join: JoinTable)
        throws -> [ManagedObject]
    {
        let targetState = try context.identity.state(forType: relationship.targetType)
        var rowIDs: [Int64] = []
        if let rowID = object.rowID, object.state != .inserted {
            var query = StoreQuery(join.schema, columns: [join.relatedColumn])
            query.predicate = .identical(.column(join.ownColumn), .value(.integer(rowID)), .stored)
            let order = join.isOwner ? JoinTable.positionColumn : JoinTable.ownerColumn
            query.sort = [QuerySort(column: order, descending: false, ordering: .stored)]
            try context.container.store.fetch(query) { row in
                if case .integer(let related) = row.value(0) { rowIDs.append(related) }
            }
        }
        var objects = try self.objects(forRows: rowIDs, in: targetState)
        if !join.isOwner, let inverse = try relationship.inverse(), case .toMany(let ownerIndex) = inverse.kind {
            // Owners whose list changed: their stored rows are stale, their lists are true.
            objects.removeAll { $0.changedLists.contains(ownerIndex) }
            for owner in listOwners.values
            where owner.changedLists.contains(ownerIndex) && type(of: owner) == relationship.targetType
                && owner.loadedList(ownerIndex)?.objects.contains(where: { $0 === object }) == true
            {
                objects.append(owner)
            }
        }
        return objects.filter { $0.state != .deleted && $0.managedObjectContext === context }
    }

    /// The context's objects for stored rows, in the order of `rowIDs`; rows that are gone
    /// are left out.
    func objects(forRows rowIDs: [Int64], in state: EntityState) throws -> [ManagedObject] {
        guard !rowIDs.isEmpty else { return [] }
        var found = [ManagedObject?](repeating: nil, count: rowIDs.count)
        var wanted: [(rowID: Int64, place: Int)] = []
        for (place, rowID) in rowIDs.enumerated() {
            if let object = state.byRowID[rowID], !object.rowIsGone {
                found[place] = object
            } else {
                wanted.append((rowID, place))
            }
        }
        try readRows(wanted, in: state, into: &found)
        return found.compactMap { $0 }
    }

    /// Reads the rows `wanted` names, in one query, and puts each object in its places. In
    /// row id order (a page's rows most often are already), each row once; the store answers
    /// in that order, so the places are filled as the rows come, with no table of them (two
    /// tables cost 0.12 s of handing 100,000 stored objects back). A row that is gone leaves
    /// its places empty.
    func readRows(_ wanted: [(rowID: Int64, place: Int)], in state: EntityState, into found: inout [ManagedObject?])
        throws
    {
        guard !wanted.isEmpty else { return }
        var ascending = true
        for index in wanted.indices.dropFirst() where wanted[index].rowID < wanted[index - 1].rowID {
            ascending = false
            break
        }
        let sorted = ascending ? wanted : wanted.sorted { $0.rowID < $1.rowID }
        var rows: [Int64] = []
        rows.reserveCapacity(sorted.count)
        for entry in sorted where rows.last != entry.rowID { rows.append(entry.rowID) }
        var next = 0
        try context.container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs(rows))) { row in
            let object = try context.materialize(row, in: state)
            let rowID = row.rowID
            while next < sorted.count, sorted[next].rowID < rowID { next += 1 }
            while next < sorted.count, sorted[next].rowID == rowID {
                found[sorted[next].place] = object
                next += 1
            }
        }
    }

    /// The row ids of the saved objects among `objects`: what the store holds of a list
    /// just read from it.
    static func storedRows(of objects: [ManagedObject]) -> Set<Int64> {
        Set(objects.lazy.filter { $0.state == .persisted }.compactMap(\.rowID))
    }

    /// After a list of `object` was decoded under `.replace`: it is the payload's, whatever
    /// the store holds when the save writes it, not a change to the list as it was read.
    func markReplaced(_ relationship: RelationshipDescription, of object: ManagedObject) {
        guard case .toMany(let index) = relationship.kind, object.changedLists.contains(index),
            (try? relationship.joinTable())??.isOwner == true
        else { return }
        object.loadedList(index)?.storedRows = nil
    }

    /// The join rows the next save writes: each changed owning-side list, as a change to the
    /// rows it was read with (`ToManyList.storedRows`), or as a replacement of the stored ones
    /// (a new object's list, one set unread or decoded under `.replace`). With them, the
    /// lists they come from, in the same order.
    func joinWrites(_ references: NewRowReferences) -> (writes: [JoinWrite], lists: [(ManagedObject, Int)]) {
        var writes: [JoinWrite] = []
        var lists: [(ManagedObject, Int)] = []
        for owner in listOwners.values where owner.managedObjectContext === context {
            guard owner.state == .inserted || owner.state == .persisted else { continue }
            for index in owner.changedLists.sorted() {
                let relationship = owner.entity.toManyRelationships[index]
                guard let join = try? relationship.joinTable(), join.isOwner else { continue }
                let list = owner.loadedList(index)
                let related = (list?.objects ?? []).filter {
                    $0.managedObjectContext === context && ($0.state == .inserted || $0.state == .persisted)
                }
                let isNew = owner.state == .inserted
                writes.append(
                    JoinWrite(
                        table: join.schema, owner: { try references.rowID(of: owner) },
                        related: { try related.map { try references.rowID(of: $0) } },
                        known: isNew ? nil : list?.storedRows, ownerIsNew: isNew))
                lists.append((owner, index))
            }
        }
        return (writes, lists)
    }

    /// After a save wrote `lists`: each now holds what the store holds of it. One the store
    /// found changed by another writer (`SaveResult.revisedJoins`) is read again when next
    /// asked for, with the other side's lists: every list goes stale, as after a merge.
    func noteJoinWrites(_ lists: [(ManagedObject, Int)], revised: Set<Int>) {
        for (owner, index) in lists {
            guard let list = owner.loadedList(index) else { continue }
            list.storedRows = Self.storedRows(of: list.objects)
        }
        if !revised.isEmpty { generation &+= 1 }
    }
}

extension NewRowReferences {
    /// The row id of a saved object, or of a new one once the store has written it.
    func rowID(of object: ManagedObject) throws -> Int64 {
        let object = object.resolved
        if object.state != .inserted, let rowID = object.rowID { return rowID }
        guard let (entity, row) = positions[ObjectIdentifier(object)], let rowID = rows.rowID(entity: entity, row: row)
        else {
            throw StashError(
                .missingValue, "a many-to-many relationship names a \(object.entity.name) that is not saved",
                entity: object.entity.name)
        }
        return rowID
    }
}
