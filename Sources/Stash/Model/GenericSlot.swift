/// A wrapper that reads and writes its own slot generically (see `SlotAccess.generic`).
protocol GenericSlot: SendableMetatype {
    /// The value of the wrapper at `wrapper` as the context keeps values: `nil` when unset.
    static func slotValue(at wrapper: UnsafeRawPointer) -> Any?
    /// Sets the value of the wrapper at `wrapper`, converting it to the wrapper's type.
    static func setSlotValue(_ value: Any?, at wrapper: UnsafeMutableRawPointer)
    /// Whether the wrapper at `wrapper` holds a value.
    static func slotIsSet(at wrapper: UnsafeRawPointer) -> Bool
}
