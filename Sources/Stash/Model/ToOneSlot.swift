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
