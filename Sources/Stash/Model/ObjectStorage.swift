/// The attribute values of one managed object, shared by the object and its wrappers.
///
/// Each `@Attribute` wrapper keeps a reference to this box and its slot in it, so reading a
/// property is an array load: no key path, no lookup. Wrappers fill a box as the object is
/// built (see `ConstructionFrame`); `ManagedObject.init` claims it (see `ObjectLayout`) and
/// becomes its `owner`.
@usableFromInline
final class ObjectStorage {
    /// Values by slot, which is the attribute's position in its entity. `nil` means never
    /// set (an optional attribute's `nil` is a boxed `Optional.none`, never confused with
    /// unset) or, for an object that stands for a stored row, not loaded yet.
    // Unchecked: the box is reached only through its object, from one isolation at a time;
    // with checks, reading every attribute of fetched objects costs 24% more instructions,
    // materializing them 20% more (stash-bench under callgrind, 5,000 records).
    @exclusivity(unchecked) @usableFromInline var values: ContiguousArray<Any?> = []
    /// Set while the object's context reports reads and writes to Observation
    /// (`ManagedObjectContext.observesObjects`). Unchecked for the reason `values` is: it is
    /// read on every property read.
    @exclusivity(unchecked) @usableFromInline var isObserved = false
    #if DEBUG
        /// What the debug check on reads (`checkRead`) needs of the owner's context, kept in
        /// step with `ManagedObject.managedObjectContext`. Unchecked for the reason `values` is.
        @exclusivity(unchecked) var readGuard = ReadGuard()
    #endif
    /// The object these values belong to, set when it claims the box. `unowned`: the box
    /// lives as long as its object, which holds it, and its wrappers, which live inside it.
    @usableFromInline unowned var owner: ManagedObject?
    /// The declarations of the attributes (options, JSON key, original name), recorded only
    /// while an entity is being described; `nil` otherwise.
    var declarations: [Int: AttributeDeclaration]?
    /// How many to-many relationship wrappers took an index in this box (they keep no value
    /// here; see `Relationship`).
    @usableFromInline var toManyCount = 0
    /// The to-many relationships' declarations by index, recorded like `declarations`.
    var toManyDeclarations: [Int: RelationshipDeclaration]?

    @usableFromInline init(capacity: Int) {
        values.reserveCapacity(capacity)
    }

    #if DEBUG
        /// Traps unless the caller is in the isolation of the owner's context, for a read of
        /// the attribute or to-one relationship at `slot` (or, `toMany`, the to-many one at
        /// that index). Debug builds only: release builds check writes and entry points.
        /// One function with few locals: every call and local costs in a debug build, where a
        /// plain read is about 800 instructions.
        @usableFromInline
        func checkRead(atSlot slot: Int, toMany: Bool = false) {
            switch readGuard.kind {
            case .none: return
            case .main: if isOnMainActor { return }
            case .queue: if readGuard.executor!._withUnsafeGuaranteedRef({ $0.isRunningJob }) { return }
            case .unconfined: if readGuard.context!._withUnsafeGuaranteedRef({ $0.hasNoOtherOccupant }) { return }
            case .actor: return readGuard.context!._withUnsafeGuaranteedRef { $0.checkActorOfRead() }
            }
            readGuard.context!.takeUnretainedValue().checkMisplacedRead(of: self, atSlot: slot, toMany: toMany)
        }
    #endif

    /// The value at `slot` when it is exactly a `Value` kept inline (see `unboxed`), read in
    /// place: a property read then copies the value once, not the `Any` around it first.
    /// `nil` when the slot is unset or holds anything else; the caller then takes the slow way.
    @inlinable @inline(__always)
    func inlineValue<Value>(at slot: Int, as type: Value.Type) -> Value? {
        // `Any?` must be an `Any` whose `nil` is kept in the type's place, not a tag after it.
        guard MemoryLayout<Any?>.size == MemoryLayout<Any>.size,
            MemoryLayout<Value>.size <= 3 * MemoryLayout<Int>.size,
            MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment
        else { return nil }
        return values.withUnsafeBufferPointer { buffer in
            precondition(slot >= 0 && slot < buffer.count, "slot \(slot) of \(buffer.count)")
            return Stash.inlineValue(in: UnsafeRawPointer(buffer.baseAddress! + slot), as: Value.self)
        }
    }

    /// Puts `value` in `slot`, one of a new object's slots, which holds what its wrapper
    /// started with: nothing, or a default.
    ///
    /// A slot holding nothing is written as fresh memory: an `Any?` that is `nil` owns no
    /// value, so there is nothing to destroy first. The ordinary assignment asks the
    /// runtime's `Optional` witnesses to find that out: about 135 instructions a value,
    /// 24.5M of a 20,000-row fetch's 457M (stash-bench under callgrind). A slot holding a
    /// default is assigned as usual.
    @inline(__always)
    static func put(_ value: consuming Any, into slot: UnsafeMutablePointer<Any?>) {
        if isEmptySlot(UnsafeRawPointer(slot)) {
            slot.initialize(to: value)
        } else {
            slot.pointee = value
        }
    }

    /// `values[slot] = value`, for a slot that likely holds nothing yet (see `put`).
    @inline(__always)
    func set(_ value: Any, atEmptySlot slot: Int) {
        values.withUnsafeMutableBufferPointer { slots in
            precondition(slot >= 0 && slot < slots.count, "slot \(slot) of \(slots.count)")
            Self.put(value, into: slots.baseAddress! + slot)
        }
    }

    /// Appends a wrapper's initial value; returns its slot.
    @inlinable
    func append(_ value: Any?) -> Int {
        values.append(value)
        return values.count - 1
    }
}
