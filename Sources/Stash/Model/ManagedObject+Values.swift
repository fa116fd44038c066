extension ManagedObject {
    /// A copy of the attribute values by position, boxed (an optional attribute's `nil` is a
    /// boxed `Optional.none`, an unset or unloaded one is `nil`): for snapshots that put
    /// them back later (`values = snapshot`). The values themselves live in the wrappers
    /// (see `ObjectLayout`).
    final var values: ContiguousArray<Any?> {
        get {
            let layout = self.layout
            var values = ContiguousArray<Any?>()
            values.reserveCapacity(layout.count)
            for slot in 0..<layout.count { values.append(layout.value(atSlot: slot, of: self)) }
            return values
        }
        set {
            let layout = self.layout
            precondition(newValue.count == layout.count, "\(newValue.count) values for \(layout.count) slots")
            for slot in 0..<layout.count { layout.setValue(newValue[slot], atSlot: slot, of: self) }
        }
    }

    /// The value at `slot`, `nil` if never set or not loaded.
    @inline(__always)
    final func value(atSlot slot: Int) -> Any? {
        layout.value(atSlot: slot, of: self)
    }

    /// Sets the value at `slot` without telling anyone (`nil`: unset). Every write of a
    /// value made while an object may be awakening passes here (or through
    /// `setValue(_:inSlot:)` with a value, or `setTarget`; a fetch's direct column reads and
    /// snapshots put back do not, on objects that are not awakening), so
    /// `awakeFromInsert()` can be undone
    /// where it overwrote a value the object was given (`ChangeTracker.awaken`).
    @inline(__always)
    final func setValue(_ value: Any?, inSlot slot: Int) {
        if isAwakening { managedObjectContext?.tracker.awakeWillWrite(self, atSlot: slot) }
        layout.setValue(value, atSlot: slot, of: self)
    }

    /// `setValue(_:inSlot:)` for a to-one relationship's slot, with no `Any` in between.
    @inline(__always)
    final func setTarget(_ target: RelationshipTarget, inSlot slot: Int) {
        guard layout.isToOne(atSlot: slot) else {
            preconditionFailure("\(type(of: self))'s slot \(slot) is not a to-one relationship's")
        }
        if isAwakening { managedObjectContext?.tracker.awakeWillWrite(self, atSlot: slot) }
        ToOneSlot.setTarget(target, at: layout.wrapper(atSlot: slot, of: self))
    }

    /// `setValue(_:inSlot:)` with a value, which skips the check for "unset": what fetching
    /// and decoding write.
    @inline(__always)
    final func setValue(_ value: Any, inSlot slot: Int) {
        if isAwakening { managedObjectContext?.tracker.awakeWillWrite(self, atSlot: slot) }
        layout.fill(value, atSlot: slot, of: self)
    }

    /// The value of `attribute`, `nil` if never set (an optional attribute's `nil` is a
    /// boxed `Optional.none`).
    @inline(__always)
    final func value(of attribute: AttributeDescription) -> Any? {
        layout.value(atSlot: attribute.index, of: self)
    }

    /// The value of `attribute`, loading it first if the object has not (see `unloaded`).
    final func loadedValue(of attribute: AttributeDescription) -> Any? {
        if unloaded.contains(attribute.index) { managedObjectContext?.faults.fulfill(self) }
        return layout.value(atSlot: attribute.index, of: self)
    }

    /// Stores a value without telling anyone: for loading rows and merging, not for
    /// changes the user makes.
    @inline(__always)
    final func setPrimitiveValue(_ value: Any?, of attribute: AttributeDescription) {
        setValue(value, inSlot: attribute.index)
    }

    /// `setPrimitiveValue` with a value.
    @inline(__always)
    final func setPrimitiveValue(_ value: Any, of attribute: AttributeDescription) {
        setValue(value, inSlot: attribute.index)
    }

    /// Stores a value as a change: tracked for the next save and, for unique attributes,
    /// in the context's unique index.
    ///
    /// Setting a saved object's attribute to the value the context last saw for it is a
    /// change whose row is compared inside the save's transaction (`restate`): the row may
    /// have moved on since the context saw it (another process), and what the caller set is
    /// what the row holds after the save. A row that still holds every such value is not
    /// written and not reported updated, so the hand-written `init(from:)` and a form that
    /// set every attribute write only what differs. An attribute not loaded is compared the
    /// same way (`markUnverified`), as decoded values are.
    ///
    /// `knownToDiffer: true` says the caller already compared (decoding, stand-ins, the
    /// relationship editor), so the value is not compared twice.
    final func setValue(_ value: Any, of attribute: AttributeDescription, knownToDiffer: Bool = false) {
        let context = managedObjectContext
        guard let context else { return setDetached(value, of: attribute) }
        context.entering {
            let index = attribute.index
            if !knownToDiffer, seemsToHold(value, attribute) {
                // The same as stored, though maybe not identical (a date within the same
                // millisecond): the object reads what it was given.
                observedChange(atSlot: index) { setValue(value, inSlot: index) }
                return restate(attribute, in: context)
            }
            // A saved object keeps each attribute's value as it is first changed (`SavedValues`).
            // A journal records a change unless this object is new since it began.
            if (state != .inserted && !changedAttributes.contains(index))
                || (context.tracker.journal.map { !$0.coversAsNew(self) } ?? false)
            {
                context.tracker.objectWillChange(self, atSlot: index)
            }
            observedChange(atSlot: index) { setValue(value, inSlot: index) }
            changedAttributes.insert(index)
            if !restatedAttributes.isEmpty { restatedAttributes.remove(index) }
            if !context.tracker.awokenDefaults.isEmpty {
                // Set again after `awakeFromInsert()`: given, no longer a default.
                context.tracker.awokenDefaults[ObjectIdentifier(self)]?.remove(index)
            }
            if unloaded.contains(index) {
                // Its saved value was never read: the save compares it with the row.
                if state == .persisted { context.tracker.markUnverified(self, index) }
                unloaded.remove(index)
            }
            if attribute.isUnique {
                context.uniqueValueDidChange(self)
            }
        }
    }

    /// Records that the caller set a saved object's attribute to the value the context last
    /// saw: a change the save writes only if the row, read inside its transaction, holds
    /// something else by then. Under `.incomingWins` the caller's value is what the row
    /// holds after the save, never a mix of this save's columns and another writer's.
    final func restate(_ attribute: AttributeDescription, in context: ManagedObjectContext) {
        let index = attribute.index
        guard state == .persisted, !changedAttributes.contains(index), !restatedAttributes.contains(index) else {
            return
        }
        context.tracker.objectWillChange(self)
        restatedAttributes.insert(index)
    }

    /// `true` if `value` is, as the store would keep it, what this saved object's loaded
    /// and not yet changed attribute holds. Only saved objects compare: a new object's every
    /// value is a change anyway, so decoding new rows pays nothing for it. Only plain values
    /// (`holdsPlainValues`): an instance of a class kept as JSON may have been changed in
    /// place, and would compare equal to itself. Never for a row deleted elsewhere: any
    /// change to it fails the save (`rowMissing`).
    private func seemsToHold(_ value: Any, _ attribute: AttributeDescription) -> Bool {
        state == .persisted && attribute.codec.holdsPlainValues && !changedAttributes.contains(attribute.index)
            && !unloaded.contains(attribute.index) && !rowIsGone && holds(value, for: attribute)
    }

    /// An object in no context: nothing to tell anyone.
    private func setDetached(_ value: Any, of attribute: AttributeDescription) {
        setValue(value, inSlot: attribute.index)
        changedAttributes.insert(attribute.index)
        unloaded.remove(attribute.index)
    }

    /// `true` if the attribute already has `value`, as the store would see it.
    final func holds(_ value: Any, for attribute: AttributeDescription) -> Bool {
        guard let current = self.value(of: attribute) else { return false }
        guard let new = try? attribute.codec.storedValue(for: value),
            let old = try? attribute.codec.storedValue(for: current)
        else { return false }
        return new == old
    }

    /// The property setter's way in: a declared normalization (`normalized:`) applies here,
    /// so an object made in code keeps its unique value in the form decoding gives it.
    @usableFromInline
    final func setValue(_ value: Any, atSlot slot: Int) {
        // A stand-in's write is a change of the object it stands in for.
        if standIn != nil { return resolved.setValue(value, atSlot: slot) }
        let attribute = entity.attributes[slot]
        setValue(attribute.normalization == nil ? value : attribute.normalized(value), of: attribute)
    }

    /// The stored value of an attribute not loaded yet (see `unloaded`); `nil` for an
    /// optional attribute never set; a trap naming the attribute for a required one, since
    /// reading it is a programming error.
    @usableFromInline
    final func valueOfUnsetAttribute(atSlot slot: Int) -> Any {
        let entity = self.entity
        let attribute = entity.attributes[slot]
        if probedSlots != nil {
            guard let placeholder = attribute.codec.placeholder() else {
                fatalError(
                    "Stash: a query reads \(entity.name).\(attribute.name), and no value of its type "
                        + "\(attribute.codec.typeName) can stand in for it while Stash finds which attribute a key path names"
                )
            }
            return placeholder
        }
        if unloaded.contains(slot) {
            guard let context = managedObjectContext else {
                fatalError(
                    "\(entity.name).\(attribute.name) of \(objectID) was never loaded and the object left its context (reset or deleted): fetch it again"
                )
            }
            context.faults.fulfill(self)
            if let value = self.value(atSlot: slot) { return value }
            // Its row is gone or could not be read: the world changed, which is no
            // programming error. It reads as its type's empty value (`isRowDeleted` says
            // which; a failed read is thrown by the context's next throwing call).
            if attribute.isOptional { return attribute.codec.nilValue }
            if let empty = try? attribute.codec.value(from: attribute.codec.storedType.emptyValue) { return empty }
            fatalError(
                "\(entity.name).\(attribute.name) of \(objectID) cannot be loaded (its row is gone or unreadable) and "
                    + "its type \(attribute.codec.typeName) has no empty value to read as")
        }
        if attribute.isOptional { return attribute.codec.nilValue }
        fatalError(
            "\(entity.name).\(attribute.name) was read before it was set: give it a value, a default, or make it optional"
        )
    }
}
