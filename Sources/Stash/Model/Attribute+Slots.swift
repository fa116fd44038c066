/// How the context reaches an attribute's value in place (see `SlotAccess`).
extension Attribute: GenericSlot {
    static func slotValue(at wrapper: UnsafeRawPointer) -> Any? {
        guard let value = wrapper.assumingMemoryBound(to: Self.self).pointee.value else { return nil }
        // As `Any`, so that an optional's `nil` is kept as a value, distinct from unset.
        return value as Any
    }

    static func setSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        wrapper.assumingMemoryBound(to: Self.self).pointee.value = value.map { unboxed($0, as: Value.self) }
    }

    static func slotIsSet(at wrapper: UnsafeRawPointer) -> Bool {
        wrapper.assumingMemoryBound(to: Self.self).pointee.value != nil
    }

    /// How the context reaches this wrapper's value (see `SlotAccess`).
    static var slotAccess: SlotAccess {
        if let plain = Value.self as? any StorableValue.Type { return .plain(plain) }
        if let optional = Value.self as? any OptionalAttributeValue.Type,
            let wrapped = optional.wrappedType as? any StorableValue.Type
        {
            return .optional(wrapped)
        }
        return .generic(Self.self)
    }
}
