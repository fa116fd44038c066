/// Sets relationships and keeps their inverses in step, for objects in a context or in none.
///
/// Setting `comment.post = post` removes the comment from its old post's `comments` and adds
/// it to the new one's, where those lists are loaded (a list not loaded yet is read from the
/// store, with the context's unsaved changes, when first asked for). Setting
/// `post.comments = [a, b]` sets `post` on `a` and `b`, and `nil` on the comments it drops.
/// Only the to-one side is written to the store: its column holds the relationship.
struct RelationshipEditor {
    let context: ManagedObjectContext?

    /// Sets `object`'s to-one `relationship` to `target`, and the inverse on both targets.
    func setTarget(_ target: ManagedObject?, of relationship: RelationshipDescription, in object: ManagedObject) {
        let slot = relationship.slot!
        if object.unloaded.contains(slot), object.state == .persisted, context != nil {
            // Decoded for a row not read yet: the stored target is not known, so the new one
            // is a change to compare with the row when it is read (as decoded attributes are);
            // no query per object. A list the object may still be in drops it when read.
            write(target, of: relationship, in: object)  // marked unverified by `setValue`
            if let target, let inverse = try? relationship.inverse(), case .toMany(let index) = inverse.kind {
                appendToList(of: target, index, object)
            }
            return
        }
        let current = RelationshipTarget(of: object, atSlot: slot)
        let old = registered(current, of: relationship)
        if let target, old === target { return }
        if target == nil, case .none = current { return }
        write(target, of: relationship, in: object)
        guard let inverse = try? relationship.inverse() else { return }
        switch inverse.kind {
        case .toMany(let index):
            if let old, let list = list(of: old, index) {
                journal(old, index)
                list.remove(object)
                context?.graph.dropAfterSave(list, of: old, at: index)
            }
            if let target { appendToList(of: target, index, object) }
        case .toOne(let inverseSlot):
            if let old, registered(RelationshipTarget(of: old, atSlot: inverseSlot), of: inverse) === object {
                write(nil, of: inverse, in: old)
            }
            if let target {
                // The target's partner until now loses it: a one-to-one relationship has one.
                if let previous = registered(RelationshipTarget(of: target, atSlot: inverseSlot), of: inverse),
                    previous !== object
                {
                    write(nil, of: relationship, in: previous)
                }
                write(object, of: inverse, in: target)
            }
        }
    }

    /// Makes `objects`, in this order, the to-many `relationship` of `object`: each takes
    /// `object` as its inverse to-one, and the ones it had and no longer has take `nil` (or
    /// are deleted, when their identity holds it: `deletesDroppedMembers()`). `current` is
    /// the list as it was, `nil` when it was not read (the save compares it with the store,
    /// `reconcileLists`): a change then, even to an empty list.
    func setObjects(
        _ objects: [ManagedObject], of relationship: RelationshipDescription, in object: ManagedObject,
        current read: [ManagedObject]?
    ) {
        let current = read ?? []
        let unread = read == nil
        guard case .toMany(let index) = relationship.kind else { return }
        var unique: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for candidate in objects where seen.insert(ObjectIdentifier(candidate)).inserted { unique.append(candidate) }
        if let join = try? relationship.joinTable() {
            return setJoined(unique, of: relationship, at: index, join, in: object, current: current, unread: unread)
        }
        let reordered = unread || unique.count != current.count || !zip(unique, current).allSatisfy { $0 === $1 }
        journal(object, index)
        if let inverse = try? relationship.inverse(), let inverseSlot = inverse.slot {
            let deletesDropped = relationship.deletesDroppedMembers()
            for old in current where !seen.contains(ObjectIdentifier(old)) {
                if deletesDropped, let context {
                    context.delete(old)
                } else {
                    setTarget(nil, of: inverse, in: old)
                }
            }
            for new in unique
            where registered(RelationshipTarget(of: new, atSlot: inverseSlot), of: inverse) !== object {
                setTarget(object, of: inverse, in: new)
            }
        }
        object.keepList(ToManyList(unique, generation: context?.graph.generation ?? 0), at: index)
        // The same list again (a re-import) is no change; another order is saved as places.
        if reordered { context?.graph.markListChanged(object, index) }
    }

    /// A many-to-many list: the owning side's list changes and is written by the next save;
    /// the inverse lists follow (loaded, when the owners' lists must change too).
    private func setJoined(
        _ objects: [ManagedObject], of relationship: RelationshipDescription, at index: Int, _ join: JoinTable,
        in object: ManagedObject, current: [ManagedObject], unread: Bool
    ) {
        // The same list again (a re-import) is no change; an unread one the save compares.
        if !unread, objects.count == current.count, zip(objects, current).allSatisfy({ $0 === $1 }) { return }
        let kept = Set(objects.map(ObjectIdentifier.init))
        let before = Set(current.map(ObjectIdentifier.init))
        let removed = current.filter { !kept.contains(ObjectIdentifier($0)) }
        let added = objects.filter { !before.contains(ObjectIdentifier($0)) }
        journal(object, index)
        // What the store held, as the replaced list knew it: the save writes the difference.
        let storedRows = join.isOwner ? list(of: object, index)?.storedRows : nil
        object.keepList(
            ToManyList(objects, generation: context?.graph.generation ?? 0, storedRows: storedRows), at: index)
        if join.isOwner { context?.graph.markListChanged(object, index) }
        guard let inverse = try? relationship.inverse(), case .toMany(let inverseIndex) = inverse.kind else { return }
        for (targets, joining) in [(removed, false), (added, true)] {
            for target in targets {
                // The owning side's list must be loaded to change; the other side's only if it is.
                let list: ToManyList?
                if !join.isOwner, let context {
                    // Kept before it is loaded and marked: kept after, an undo put it back as a
                    // changed list of objects the undo took out, and the next save deleted their
                    // join rows.
                    journal(target, inverseIndex)
                    _ = context.graph.relatedObjects(of: target, toMany: inverseIndex)
                    list = target.loadedList(inverseIndex)
                    context.graph.markListChanged(target, inverseIndex)
                } else {
                    list = self.list(of: target, inverseIndex)
                    if list != nil { journal(target, inverseIndex) }
                }
                if joining { list?.append(object) } else { list?.remove(object) }
                if let list { context?.graph.dropAfterSave(list, of: target, at: inverseIndex) }
            }
        }
    }

    /// Appends `object` to the loaded one-to-many list of `owner`, if it is not in it yet: the
    /// list's new order is saved with it, so a reopen gives what memory shows.
    private func appendToList(of owner: ManagedObject, _ index: Int, _ object: ManagedObject) {
        guard let list = list(of: owner, index), !list.contains(object) else { return }
        journal(owner, index)
        list.append(object)
        context?.graph.dropAfterSave(list, of: owner, at: index)
        if owner.entity.toManyRelationships[index].isOrdered { context?.graph.markListChanged(owner, index) }
    }

    /// The object `target` names, if the context holds it (nothing is loaded).
    func registered(_ target: RelationshipTarget, of relationship: RelationshipDescription) -> ManagedObject? {
        switch target {
        case .none: nil
        case .object(let object): object.resolved
        case .row(let rowID): context?.identity.registeredObject(forRow: rowID, of: relationship.targetType)
        }
    }

    /// The to-many list at `index` of `object`, if it is loaded and current, or changed (the
    /// truth until saved, however stale its generation).
    func list(of object: ManagedObject, _ index: Int) -> ToManyList? {
        guard let list = object.loadedList(index) else { return nil }
        if let context, list.generation != context.graph.generation, !object.changedLists.contains(index) {
            return nil
        }
        return list
    }

    /// Before a list of `owner` changes: a decode that fails puts it back (`ChangeJournal`).
    func journal(_ owner: ManagedObject, _ index: Int) {
        guard let context, let journal = context.tracker.journal else { return }
        journal.recordList(owner, index, in: context)
    }

    /// Stores `target` in the to-one slot as a change, tracked like any attribute's.
    private func write(_ target: ManagedObject?, of relationship: RelationshipDescription, in object: ManagedObject) {
        let attribute = object.entity.attributes[relationship.slot!]
        object.setValue(
            target.map(RelationshipTarget.object) ?? RelationshipTarget.none, of: attribute, knownToDiffer: true)
    }
}
