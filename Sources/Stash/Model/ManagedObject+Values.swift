extension ManagedObject {
    /// The attribute values by position (see `ObjectStorage`).
    final var values: ContiguousArray<Any?> {
        @inline(__always) get { storage.values }
        @inline(__always) set { storage.values = newValue }
        @inline(__always) _modify { yield &storage.values }
    }

    /// The value of `attribute`, `nil` if never set (an optional attribute's `nil` may be
    /// either `nil` here or a boxed `Optional.none`).
    @inline(__always)
    final func value(of attribute: AttributeDescription) -> Any? {
        storage.values[attribute.index]
    }

    /// Stores a value without telling anyone: for loading rows and merging, not for
    /// changes the user makes.
    @inline(__always)
    final func setPrimitiveValue(_ value: Any?, of attribute: AttributeDescription) {
        storage.values[attribute.index] = value
    }

    /// Stores a value as a change: tracked for the next save and, for unique attributes,
    /// in the context's unique index.
    final func setValue(_ value: Any, of attribute: AttributeDescription) {
        let context = managedObjectContext
        if let context, (state != .inserted && changedAttributes.isEmpty) || context.activeJournal != nil {
            context.objectWillChange(self)
        }
        storage.values[attribute.index] = value
        changedAttributes.insert(attribute.index)
        if let context, attribute.isUnique {
            context.uniqueValueDidChange(self)
        }
    }

    /// `true` if the attribute already has `value`, as the store would see it.
    final func holds(_ value: Any, for attribute: AttributeDescription) -> Bool {
        guard let current = self.value(of: attribute) else { return false }
        guard let new = try? attribute.codec.storedValue(for: value),
            let old = try? attribute.codec.storedValue(for: current)
        else { return false }
        return new == old
    }

    @usableFromInline
    final func setValue(_ value: Any, atSlot slot: Int) {
        setValue(value, of: entity.attributes[slot])
    }

    /// `nil` for an optional attribute never set; a trap naming the attribute for a
    /// required one, since reading it is a programming error.
    @usableFromInline
    final func valueOfUnsetAttribute(atSlot slot: Int) -> Any {
        let entity = self.entity
        let attribute = entity.attributes[slot]
        if attribute.isOptional { return attribute.codec.nilValue }
        fatalError(
            "\(entity.name).\(attribute.name) was read before it was set: give it a value, a default, or make it optional"
        )
    }
}
