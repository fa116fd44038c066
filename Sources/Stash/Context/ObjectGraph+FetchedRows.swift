extension ObjectGraph {
    /// Numbers `objects`, a fetch's answer of `state`'s entity, and keeps their rows as the
    /// entity's last fetch (`FetchedRows`). Only for several objects of an entity with to-one
    /// relationships: a look-up by unique value answers one, and pays a compare.
    func noteFetched(_ objects: [some ManagedObject], in state: EntityState) {
        guard objects.count > 1, state.entity.relationships.count != state.entity.toManyRelationships.count else {
            return
        }
        let number = FetchedRows.nextSerial()
        let serial = UInt64(number) << 32
        var rowIDs: [Int64] = []
        rowIDs.reserveCapacity(objects.count)
        for (place, object) in objects.enumerated() {
            object.fetchPlace = serial | UInt64(place)
            rowIDs.append(object.rowID ?? .min)
        }
        state.lastFetch = FetchedRows(serial: number, rowIDs: rowIDs)
    }

    /// Loads the targets of the to-one `relationship` for the objects fetched beside `source`
    /// (its window of `FetchedRows.windowSize`), in one query for those not registered, as
    /// prefetching does: each of them still alive keeps its target, so reading it costs no
    /// query and no look-up. A window is loaded once per relationship. A store that fails here
    /// is left for the read of the one target, which says so.
    func loadWindowTargets(
        around source: ManagedObject, _ relationship: RelationshipDescription, in targetState: EntityState
    ) {
        guard case .toOne(let slot) = relationship.kind else { return }
        withContext { context in
            let sourceState = context.identity.state(for: source.entity)
            guard let rows = sourceState.lastFetch.window(around: source.fetchPlace, slot: slot) else { return }
            var neighbours: [ManagedObject] = []
            neighbours.reserveCapacity(rows.count)
            for rowID in rows where rowID != .min {
                if let object = sourceState.byRowID[rowID], object.state == .persisted { neighbours.append(object) }
            }
            try? context.prefetchTargets(of: neighbours, slot, relationship, in: targetState)
        }
    }
}
