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
        case .toOne: ToOneSlot.setTarget(RelationshipTarget(slotValue: value), at: wrapper)
        case .generic(let type): type.setSlotValue(value, at: wrapper)
        }
    }

    /// Reads a row's `column` straight into the wrapper at `wrapper`, as the plain types'
    /// `read` reads it (see `EntityDescription.readsColumnDirectly`); `false`, with nothing written,
    /// when the column holds a value of another kind (the codec then reports it) or the slot
    /// is neither a plain type's nor a to-one relationship's.
    @inline(__always)
    func read(_ row: any StoreRow, column: Int, into wrapper: UnsafeMutableRawPointer) -> Bool {
        switch self {
        case .plain(let type): type.readIntoPlainSlot(row, column: column, at: wrapper)
        case .optional(let type): type.readIntoOptionalSlot(row, column: column, at: wrapper)
        case .toOne: ToOneSlot.readTarget(row, column: column, at: wrapper)
        case .generic: false
        }
    }

    /// The wrapper's value as a plain type's codec stores it (NULL when unset), without boxing
    /// it (see `EntityDescription.readsColumnDirectly`: the same codecs); `nil` for a slot of
    /// another kind, whose value goes through its codec. Throws what the type's
    /// `storedValue()` throws (a date out of range).
    @inline(__always)
    func storedValue(at wrapper: UnsafeRawPointer) throws -> StoredValue? {
        switch self {
        case .plain(let type): try type.storedValueOfPlainSlot(at: wrapper)
        case .optional(let type): try type.storedValueOfOptionalSlot(at: wrapper)
        case .toOne, .generic: nil
        }
    }

    /// Whether the wrapper's value comes back from the store as it is or rounded (see
    /// `StorableValue.roundTripped`), and if so, with `write`, rounds it in place: for an
    /// object that moves to another context as its row would be read (`DetachedObject`).
    /// `false` for a slot of another kind: its value is not Stash's to vouch for.
    @inline(__always)
    func roundTrip(at wrapper: UnsafeMutableRawPointer, write: Bool) -> Bool {
        switch self {
        case .plain(let type): type.roundTripPlainSlot(at: wrapper, write: write)
        case .optional(let type): type.roundTripOptionalSlot(at: wrapper, write: write)
        case .toOne, .generic: false
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
