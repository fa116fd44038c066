/// How the context reads and writes one wrapper's value in place (see `ObjectLayout`),
/// chosen once per class and attribute.
///
/// The wrapper's type is known only at run time here, and unspecialized generic code over it
/// asks the runtime for `Optional<Value>`'s metadata on every call (a cache look-up of about
/// 1,500 instructions; stash-bench's fetch tripled under callgrind). So each kind of slot
/// goes through code specialized for its type: the `StorableValue` conformances' own
/// witnesses for the plain types and their optionals, one concrete layout for to-one
/// relationships; only other types (values kept as JSON, raw-value enums) take the generic way.
enum SlotAccess: Sendable {
    /// An `Attribute<Value>` where `Value` is a `StorableValue`.
    case plain(any StorableValue.Type)
    /// An `Attribute<Wrapped?>` where `Wrapped` is a `StorableValue`.
    case optional(any StorableValue.Type)
    /// A to-one `Relationship`: its target (see `RelationshipTarget`).
    case toOne
    /// Any other wrapper, through its own generic witnesses.
    case generic(any GenericSlot.Type)

    @inline(__always)
    func value(at wrapper: UnsafeRawPointer) -> Any? {
        switch self {
        case .plain(let type): type.plainSlotValue(at: wrapper)
        case .optional(let type): type.optionalSlotValue(at: wrapper)
        case .toOne: ToOneSlot.target(at: wrapper).map { $0 as Any }
        case .generic(let type): type.slotValue(at: wrapper)
        }
    }

    @inline(__always)
    func setValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        switch self {
        case .plain(let type): type.setPlainSlotValue(value, at: wrapper)
        case .optional(let type): type.setOptionalSlotValue(value, at: wrapper)
        case .toOne: ToOneSlot.setTarget(value, at: wrapper)
        case .generic(let type): type.setSlotValue(value, at: wrapper)
        }
    }

    /// `setValue` with a value (not unset): decoding and fetching, where every write is one.
    @inline(__always)
    func fill(_ value: Any, at wrapper: UnsafeMutableRawPointer) {
        switch self {
        case .plain(let type): type.fillPlainSlot(value, at: wrapper)
        case .optional(let type): type.fillOptionalSlot(value, at: wrapper)
        case .toOne: ToOneSlot.setTarget(ToOneSlot.target(from: value), at: wrapper)
        case .generic(let type): type.setSlotValue(value, at: wrapper)
        }
    }

    @inline(__always)
    func isSet(at wrapper: UnsafeRawPointer) -> Bool {
        switch self {
        case .plain(let type): type.plainSlotIsSet(at: wrapper)
        case .optional(let type): type.optionalSlotIsSet(at: wrapper)
        case .toOne: ToOneSlot.target(at: wrapper) != nil
        case .generic(let type): type.slotIsSet(at: wrapper)
        }
    }
}

/// A wrapper that reads and writes its own slot generically (see `SlotAccess.generic`).
protocol GenericSlot: SendableMetatype {
    /// The value of the wrapper at `wrapper` as the context keeps values: `nil` when unset.
    static func slotValue(at wrapper: UnsafeRawPointer) -> Any?
    /// Sets the value of the wrapper at `wrapper`, converting it to the wrapper's type.
    static func setSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer)
    /// Whether the wrapper at `wrapper` holds a value.
    static func slotIsSet(at wrapper: UnsafeRawPointer) -> Bool
}

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

/// A to-one relationship's slot. Its layout is the same for every target type, so it is
/// read as one concrete type, with no generic metadata.
enum ToOneSlot {
    @inline(__always)
    static func target(at wrapper: UnsafeRawPointer) -> RelationshipTarget? {
        wrapper.assumingMemoryBound(to: Relationship<ManagedObject?>.self).pointee.target
    }

    @inline(__always)
    static func setTarget(_ target: RelationshipTarget?, at wrapper: UnsafeMutableRawPointer) {
        wrapper.assumingMemoryBound(to: Relationship<ManagedObject?>.self).pointee.target = target
    }

    /// Sets the target from a value as the context passes values: a `RelationshipTarget`, or
    /// an object; `nil` is unset.
    static func setTarget(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        guard let value else { return setTarget(RelationshipTarget?.none, at: wrapper) }
        setTarget(target(from: value), at: wrapper)
    }

    /// The target `value` names. A `RelationshipTarget` is read in place (see `unboxed`): the
    /// runtime's cast cost about 300 instructions a related object kept (graph fetch).
    static func target(from value: Any) -> RelationshipTarget {
        let inline: RelationshipTarget? = withUnsafePointer(to: value) { pointer in
            inlineValue(in: UnsafeRawPointer(pointer), as: RelationshipTarget.self)
        }
        if let inline { return inline }
        if let target = value as? RelationshipTarget { return target }
        if let object = value as? ManagedObject { return .object(object) }
        return .none
    }
}

// The slot operations of the plain types, requirements of `StorableValue` so that each
// conformance has them specialized.
extension StorableValue {
    static func plainSlotValue(at wrapper: UnsafeRawPointer) -> Any? {
        guard let value = wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value else { return nil }
        return value
    }

    static func setPlainSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        guard let value else {
            wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value = nil
            return
        }
        fillPlainSlot(value, at: wrapper)
    }

    static func fillPlainSlot(_ value: Any, at wrapper: UnsafeMutableRawPointer) {
        wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value = unboxed(value, as: Self.self)
    }

    static func plainSlotIsSet(at wrapper: UnsafeRawPointer) -> Bool {
        wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value != nil
    }

    static func optionalSlotValue(at wrapper: UnsafeRawPointer) -> Any? {
        guard let value = wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value else { return nil }
        return value as Any
    }

    static func setOptionalSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        guard let value else {
            wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value = nil
            return
        }
        fillOptionalSlot(value, at: wrapper)
    }

    static func fillOptionalSlot(_ value: Any, at wrapper: UnsafeMutableRawPointer) {
        wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value = unboxed(value, as: Self?.self)
    }

    static func optionalSlotIsSet(at wrapper: UnsafeRawPointer) -> Bool {
        wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value != nil
    }

    static func readIntoPlainSlot(_ row: any StoreRow, column: Int, at wrapper: UnsafeMutableRawPointer) -> Bool {
        guard let value = read(row, column: column) else { return false }
        wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value = value
        return true
    }

    static func readIntoOptionalSlot(_ row: any StoreRow, column: Int, at wrapper: UnsafeMutableRawPointer) -> Bool {
        // The value first: `read` answers nil for NULL, so a column that holds one is asked
        // its type once, not twice.
        if let value = read(row, column: column) {
            wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value = .some(value)
            return true
        }
        guard row.isNull(column) else { return false }
        wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value = .some(nil)
        return true
    }
}
