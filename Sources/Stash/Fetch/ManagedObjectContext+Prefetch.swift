extension ManagedObjectContext {
    /// Loads the relationships `keyPaths` name for all of `objects` at once: one query per
    /// relationship (per 500 keys), where reading them one object at a time would make one
    /// per object.
    ///
    /// - to-one: the target rows not registered yet, by row id;
    /// - to-many through the inverse column: the related rows whose column names any of the
    ///   objects, each object's list made from them, with the context's unsaved changes;
    /// - many-to-many: the join rows of all the objects, then their targets.
    func prefetch(_ keyPaths: [SendableKeyPath], of objects: [ManagedObject], in state: EntityState) throws {
        guard !objects.isEmpty else { return }
        for keyPath in keyPaths {
            let relationship = try state.entity.relationship(for: keyPath.keyPath)
            let targetState = try self.identity.state(forType: relationship.targetType)
            switch relationship.kind {
            case .toOne(let slot):
                try prefetchTargets(of: objects, slot, relationship, in: targetState)
            case .toMany(let index):
                let owners = objects.filter { object in
                    object.rowID != nil && object.state == .persisted
                        && !(object.loadedList(index).map { $0.generation == graph.generation } ?? false)
                        && !object.changedLists.contains(index)
                }
                guard !owners.isEmpty else { continue }
                if let join = try relationship.joinTable() {
                    try prefetchJoined(owners, index, relationship, join, in: targetState)
                } else {
                    try prefetchRelated(owners, index, relationship, in: targetState)
                }
            }
        }
    }

    func prefetchTargets(
        of objects: [ManagedObject], _ slot: Int, _ relationship: RelationshipDescription, in targetState: EntityState
    ) throws {
        // The row ids to load: a small table of the ones already taken drops most repeats
        // (many objects naming few targets) before `objects(forRows:in:)` drops the rest and
        // the ones the context holds. A `Set` of them cost about 156 instructions an object
        // (stash-bench's prefetched graph fetch, callgrind). `Int64.min` marks an empty place;
        // a row id of that value is never taken as seen.
        var wanted: [Int64] = []
        var taken = [Int64](repeating: .min, count: Self.takenTableSize)
        for object in objects {
            guard case .row(let rowID) = RelationshipTarget(of: object, atSlot: slot) else { continue }
            let place = Int(truncatingIfNeeded: UInt64(bitPattern: rowID) % UInt64(Self.takenTableSize))
            if taken[place] == rowID, rowID != .min { continue }
            taken[place] = rowID
            wanted.append(rowID)
        }
        // Held until each object keeps its target: the context holds objects only while
        // someone does (`RegisteredObjects`), so a target named by row id alone could be gone
        // by the read.
        let loaded = try graph.objects(forRows: wanted, in: targetState)
        let inverseList = relationship.inverseListIndex
        for object in objects {
            // A target whose row is gone reads as `nil`, as `relatedObject` answers: not kept.
            guard case .row(let rowID) = RelationshipTarget(of: object, atSlot: slot),
                let target = targetState.byRowID[rowID], !target.rowIsGone
            else { continue }
            object.keep(target, inSlot: slot, inverseList: inverseList)
        }
        withExtendedLifetime(loaded) {}
    }

    /// Entries of `prefetchTargets`'s table of row ids already taken.
    private static let takenTableSize = 1024

    /// A to-many relationship through its inverse column: the rows whose column holds any
    /// owner's key, in one query, each owner's list made as loading it alone makes it.
    private func prefetchRelated(
        _ owners: [ManagedObject], _ index: Int, _ relationship: RelationshipDescription, in targetState: EntityState
    ) throws {
        guard let inverse = try relationship.inverse(), inverse.slot != nil else { return }
        let lists = try graph.objects(pointingAt: owners, through: inverse)
        for (owner, list) in zip(owners, lists) {
            owner.keepList(ToManyList(list, generation: graph.generation), at: index, loaded: true)
            if let inverseSlot = inverse.slot {
                for member in list { member.nameByRow(owner, inSlot: inverseSlot) }
            }
        }
    }

    /// A many-to-many relationship: the join rows of all the owners in one query (their
    /// order kept), then the related rows not registered yet.
    private func prefetchJoined(
        _ owners: [ManagedObject], _ index: Int, _ relationship: RelationshipDescription, _ join: JoinTable,
        in targetState: EntityState
    ) throws {
        // The other side's lists depend on the owners' unsaved lists: loaded one at a time.
        if !join.isOwner, let inverse = try relationship.inverse(), case .toMany(let ownerIndex) = inverse.kind,
            graph.listOwners.values.contains(where: {
                type(of: $0) == relationship.targetType && $0.changedLists.contains(ownerIndex)
            })
        {
            return
        }
        let pairs = try graph.storedPairs(of: owners, join)
        let related = try graph.objects(forRows: Array(Set(pairs.values.joined())).sorted(), in: targetState)
        let byRow = Dictionary(related.compactMap { object in object.rowID.map { ($0, object) } }) { first, _ in first }
        for owner in owners {
            let list = (pairs[owner.rowID!] ?? []).compactMap { byRow[$0] }.filter { $0.state != .deleted }
            owner.keepList(
                ToManyList(
                    list, generation: graph.generation,
                    storedRows: join.isOwner ? ObjectGraph.storedRows(of: list) : nil),
                at: index, loaded: true)
        }
    }
}
