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

    static func storedValueOfPlainSlot(at wrapper: UnsafeRawPointer) throws -> StoredValue {
        try wrapper.assumingMemoryBound(to: Attribute<Self>.self).pointee.value?.storedValue() ?? .null
    }

    static func storedValueOfOptionalSlot(at wrapper: UnsafeRawPointer) throws -> StoredValue {
        guard case .some(.some(let value)) = wrapper.assumingMemoryBound(to: Attribute<Self?>.self).pointee.value else {
            return .null
        }
        return try value.storedValue()
    }

    static func roundTripPlainSlot(at wrapper: UnsafeMutableRawPointer, write: Bool) -> Bool {
        let attribute = wrapper.assumingMemoryBound(to: Attribute<Self>.self)
        guard let value = attribute.pointee.value else { return true }
        guard let roundTripped = value.roundTripped() else { return false }
        if write { attribute.pointee.value = roundTripped }
        return true
    }

    static func roundTripOptionalSlot(at wrapper: UnsafeMutableRawPointer, write: Bool) -> Bool {
        let attribute = wrapper.assumingMemoryBound(to: Attribute<Self?>.self)
        guard case .some(.some(let value)) = attribute.pointee.value else { return true }
        guard let roundTripped = value.roundTripped() else { return false }
        if write { attribute.pointee.value = .some(roundTripped) }
        return true
    }
}
