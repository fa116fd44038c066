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

    /// Reads a row's relationship column into the slot as `RelationshipCodec.read` reads it (a
    /// row id names the row, NULL names none), without boxing the target in `Any` on its way:
    /// that cost about 470 instructions a fetched essay (stash-bench's graph fetch, callgrind).
    /// `false`, with nothing written, for a column of any other kind (the codec reports it).
    @inline(__always)
    static func readTarget(_ row: any StoreRow, column: Int, at wrapper: UnsafeMutableRawPointer) -> Bool {
        if let rowID = row.integer(column) {
            setTarget(.row(rowID), at: wrapper)
            return true
        }
        guard row.isNull(column) else { return false }
        setTarget(RelationshipTarget.none, at: wrapper)
        return true
    }
}
