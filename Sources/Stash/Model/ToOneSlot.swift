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

    /// Sets the target from a value as the context passes values (see
    /// `RelationshipTarget.init(slotValue:)`); `nil` is unset.
    static func setTarget(_ value: Any?, at wrapper: UnsafeMutableRawPointer) {
        setTarget(value == nil ? nil : RelationshipTarget(slotValue: value), at: wrapper)
    }
}
