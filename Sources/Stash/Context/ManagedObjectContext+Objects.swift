extension ManagedObjectContext {
    /// This context's object for `objectID`, if the context holds it; nothing is read.
    ///
    /// ```swift
    /// let id = try await background.perform { … return article.objectID }
    /// let article = container.mainContext.registeredObject(for: id) as? Article
    /// ```
    public func registeredObject(for objectID: ObjectID) -> ManagedObject? {
        entering { identity.registeredObject(for: objectID) }
    }

    /// This context's object for `objectID`: the one it holds, or one loaded from the row.
    /// Throws `rowMissing` if the row is gone, and `unknownEntity` for another container's
    /// entity. A temporary ID (an object not saved yet) names an object of its own context
    /// only.
    ///
    /// ```swift
    /// let ids = try await background.perform { () -> [ObjectID] in … }
    /// let articles = try ids.map { try context.existingObject(with: $0) as! Article }
    /// ```
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        try entering {
            try throwPendingLoadError()
            guard let state = identity.state(named: objectID.entityName) else {
                throw StashError(
                    .unknownEntity, "\(objectID) is not an object of this container's models",
                    entity: objectID.entityName)
            }
            if let object = registeredObject(for: objectID) { return object }
            guard let rowID = objectID.rowID else {
                throw StashError(
                    .rowMissing,
                    "\(objectID) is a new object of another context, not saved yet: save it first, then pass its objectID",
                    entity: state.entity.name)
            }
            var found: ManagedObject?
            try container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs([rowID]))) { row in
                found = try materialize(row, in: state)
            }
            guard let found else {
                throw StashError(.rowMissing, "\(objectID) has no row: it was deleted", entity: state.entity.name)
            }
            return found
        }
    }

    /// This context's objects for `objectIDs`, in their order: the registered ones, and the
    /// others read from the store, one query per entity (per any number of them), not one per
    /// object. An ID whose row is gone is left out.
    public func existingObjects(with objectIDs: [ObjectID]) throws -> [ManagedObject] {
        try entering {
            try throwPendingLoadError()
            var found = [ManagedObject?](repeating: nil, count: objectIDs.count)
            // Per entity, the rows to read and the places in `found` they fill.
            var reads: [(state: EntityState, wanted: [(rowID: Int64, place: Int)])] = []
            // IDs come in runs of one entity: its name compared, not looked up, for each.
            var last: (name: String, read: Int)?
            for (place, objectID) in objectIDs.enumerated() {
                guard let rowID = objectID.rowID else {
                    guard let object = identity.registeredObject(for: objectID) else {
                        throw StashError(
                            .rowMissing,
                            "\(objectID) is a new object of another context, not saved yet: save it first, then pass "
                                + "its objectID", entity: objectID.entityName)
                    }
                    found[place] = object
                    continue
                }
                let read: Int
                if let last, last.name == objectID.entityName {
                    read = last.read
                } else {
                    guard let state = identity.state(named: objectID.entityName) else {
                        throw StashError(
                            .unknownEntity, "\(objectID.entityName) is not one of this container's models",
                            entity: objectID.entityName)
                    }
                    if let index = reads.firstIndex(where: { $0.state === state }) {
                        read = index
                    } else {
                        reads.append((state, []))
                        read = reads.count - 1
                    }
                    last = (objectID.entityName, read)
                }
                if let object = reads[read].state.byRowID[rowID], !object.rowIsGone {
                    found[place] = object
                } else {
                    reads[read].wanted.append((rowID, place))
                }
            }
            for (state, wanted) in reads { try graph.readRows(wanted, in: state, into: &found) }
            return found.compactMap { $0 }
        }
    }

    /// Brings an object up to date with its row. With `mergeChanges`, attributes changed in
    /// this context keep their values (as the merge policy says, see `automaticallyMergesChanges`)
    /// and the others take the stored ones; without, every unsaved change of the object is
    /// dropped. An object whose row is gone leaves the context's identity map (see
    /// `rowMissing`). A store that cannot be read leaves the object as it was.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        entering {
            graph.generation &+= 1
            let object = object.resolved
            guard object.managedObjectContext === self, object.state == .persisted || object.state == .deleted else {
                return
            }
            let state = self.identity.state(for: object.entity)
            if !mergeChanges, object.state == .deleted {
                object.state = .persisted
                state.deleted[ObjectIdentifier(object)] = nil
            }
            try? merger.refresh([object], in: state, keepingChanges: mergeChanges)
        }
    }
}
