extension ObjectGraph {
    /// Numbers `objects`, a fetch's answer of `state`'s entity, and keeps their rows as the
    /// entity's last fetch (`FetchedRows`). Only for several objects of an entity with to-one
    /// relationships: a look-up by unique value answers one, and keeps its place in the
    /// answer of several it came in before.
    func noteFetched(_ objects: [some ManagedObject], in state: EntityState) {
        guard objects.count > 1 else { return }
        let number = FetchedRows.number(for: state.entity)
        guard number != 0 else { return }
        // Through the buffer: a `for object in objects` retained and released each one.
        let rowIDs = objects.withUnsafeBufferPointer { objects in
            [Int64](unsafeUninitializedCapacity: objects.count) { rowIDs, count in
                for place in objects.indices {
                    objects[place].fetchPlace = number | UInt64(place)
                    rowIDs.initializeElement(at: place, to: objects[place].rowID ?? .min)
                }
                count = objects.count
            }
        }
        state.lastFetch = FetchedRows(number: number, rowIDs: rowIDs)
    }

    /// Loads the targets of the to-one `relationship` for the objects fetched beside `source`
    /// (its window of `FetchedRows.windowSize`), in one query for those not registered, as
    /// prefetching does: each of them still alive keeps its target, so reading it costs no
    /// query and no look-up. A window is loaded once per relationship. A store that fails here
    /// is left for the read of the one target, which says so; the window is given back, for
    /// the next read that misses to load.
    ///
    /// Not while an all-or-nothing decode is under way (its journal would take the targets
    /// out of the context if it failed, and the neighbours would keep them), nor while the
    /// target entity has unsaved inserts (a loaded row matching one by unique value adopts
    /// it, as the merge policy says: that happens for the row read, not for its neighbours').
    func loadWindowTargets(
        around source: ManagedObject, _ relationship: RelationshipDescription, in targetState: EntityState
    ) {
        guard case .toOne(let slot) = relationship.kind else { return }
        withContext { context in
            guard context.tracker.journal == nil, targetState.inserted.isEmpty else { return }
            let sourceState = context.identity.state(for: source.entity)
            guard let rows = sourceState.lastFetch.window(around: source.fetchPlace, slot: slot) else { return }
            var neighbours: [ManagedObject] = []
            neighbours.reserveCapacity(rows.count)
            for rowID in rows where rowID != .min {
                if let object = sourceState.byRowID[rowID], object.state == .persisted { neighbours.append(object) }
            }
            do {
                try context.prefetchTargets(of: neighbours, slot, relationship, in: targetState)
            } catch {
                sourceState.lastFetch.reopen(around: source.fetchPlace, slot: slot)
            }
        }
    }
}
