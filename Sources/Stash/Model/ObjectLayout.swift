@_spi(Reflection) import Swift

/// Where the instances of one model class keep their Stash wrappers, read once per class
/// from the runtime's field metadata: each wrapper field's name, byte offset and type.
///
/// The values of an object live in its wrappers, typed, inside the object's own memory
/// (see `Attribute`): this is what lets the context read and write them by slot without
/// knowing their types. Every wrapper type starts with the same stored property, its slot
/// (`WrapperHeader`), which `ManagedObject.init` writes from here.
final class ObjectLayout: Sendable {
    let type: ManagedObject.Type
    /// The wrapper fields in slot order: the order Swift initializes them in, which is the
    /// most derived class's first, each class's in declaration order. Attributes and to-one
    /// relationships: each has a slot, its column's position.
    let fields: [Field]
    /// The to-many relationship fields, in the same order: they keep no value, only their
    /// index (see `Relationship`).
    let toManyFields: [Field]
    /// Whether the class or a superclass below `ManagedObject` stores properties of its own
    /// besides Stash wrappers (a cache, a formatter): what they hold is not Stash's to vouch
    /// for, so its objects never move to another context (`DetachedObject`).
    let hasOtherStoredProperties: Bool
    /// The class of each to-one relationship's target, by slot (`nil` at an attribute's): plain
    /// values, so that a to-one read tells its slot and finds a held target's class without
    /// copying a `Field` or retaining anything (see `IdentityMap.heldObject(forRow:ofType:)`).
    let toOneTargets: [ObjectIdentifier?]

    struct Field: Sendable {
        /// The property's name (the field's, without the wrapper's leading underscore).
        let name: String
        /// Byte offset of the wrapper in an instance.
        let offset: Int
        let wrapperType: any ManagedProperty.Type
        /// How the context reads and writes the wrapper's value (a to-many relationship's
        /// wrapper keeps none: never asked).
        let access: SlotAccess
    }

    var count: Int { fields.count }

    /// Whether `slot` is a to-one relationship's, told by `toOneTargets` (plain values): matching
    /// the field's `access` copied the `Field` (about 120 instructions a read in stash-bench's
    /// graph fetch, callgrind).
    @inline(__always)
    func isToOne(atSlot slot: Int) -> Bool {
        slot < toOneTargets.count && toOneTargets[slot] != nil
    }

    private init(type: ManagedObject.Type) {
        self.type = type
        var chain: [AnyClass] = []
        var current: AnyClass? = type
        while let someClass: AnyClass = current, someClass != ManagedObject.self {
            chain.append(someClass)
            current = _getSuperclass(someClass)
        }
        var fields: [Field] = []
        var toManyFields: [Field] = []
        var others = false
        for position in chain.indices {
            let someClass: AnyClass = chain[position]
            // `_forEachField` lists a class's fields after its superclasses'; keep its own.
            let inherited = Self.fieldCount(of: position + 1 < chain.count ? chain[position + 1] : ManagedObject.self)
            var index = 0
            _ = _forEachField(of: someClass, options: classFields) { name, offset, fieldType, _ in
                defer { index += 1 }
                guard index >= inherited else { return true }
                guard let wrapperType = fieldType as? any ManagedProperty.Type else {
                    others = true
                    return true
                }
                let field = Field(
                    name: String(String(cString: name).dropFirst()), offset: offset, wrapperType: wrapperType,
                    access: wrapperType.slotAccess)
                if wrapperType.isToMany {
                    toManyFields.append(field)
                } else {
                    fields.append(field)
                }
                return true
            }
        }
        self.fields = fields
        self.toOneTargets = fields.map { field in
            guard case .toOne = field.access else { return nil }
            return field.wrapperType.toOneTargetType.map(ObjectIdentifier.init)
        }
        self.toManyFields = toManyFields
        self.hasOtherStoredProperties = others
    }

    private static func fieldCount(of someClass: AnyClass) -> Int {
        var count = 0
        _ = _forEachField(of: someClass, options: classFields) { _, _, _, _ in
            count += 1
            return true
        }
        return count
    }

    // MARK: Slots

    /// Writes each wrapper's slot into `object`'s wrappers, which Swift initialized before
    /// `ManagedObject.init` could see them; returns the slot each had (its declaration's
    /// number while an entity is described, else -1), in slot order.
    @discardableResult
    func assignSlots(of object: ManagedObject, reportingOld: Bool = false) -> (fields: [Int], toMany: [Int]) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        var old: (fields: [Int], toMany: [Int]) = ([], [])
        for slot in fields.indices {
            let header = (base + fields[slot].offset).assumingMemoryBound(to: WrapperHeader.self)
            if reportingOld { old.fields.append(header.pointee.slot) }
            header.pointee.slot = slot
        }
        for index in toManyFields.indices {
            let header = (base + toManyFields[index].offset).assumingMemoryBound(to: WrapperHeader.self)
            if reportingOld { old.toMany.append(header.pointee.slot) }
            header.pointee.slot = index
        }
        return old
    }

    /// The address of the wrapper at `slot` in `object`, an instance of this layout's class.
    @inline(__always)
    func wrapper(atSlot slot: Int, of object: ManagedObject) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + fields[slot].offset
    }

    /// The value at `slot`: `nil` when unset or not loaded (see `Attribute`).
    @inline(__always)
    func value(atSlot slot: Int, of object: ManagedObject) -> Any? {
        fields[slot].access.value(at: UnsafeRawPointer(wrapper(atSlot: slot, of: object)))
    }

    /// Sets the value at `slot` (`nil`: unset), converting it to the attribute's type.
    @inline(__always)
    func setValue(_ value: Any?, atSlot slot: Int, of object: ManagedObject) {
        fields[slot].access.setValue(value, at: wrapper(atSlot: slot, of: object))
    }

    /// Sets the value at `slot` of an object being filled.
    @inline(__always)
    func fill(_ value: Any, atSlot slot: Int, of object: ManagedObject) {
        fields[slot].access.fill(value, at: wrapper(atSlot: slot, of: object))
    }

    /// See `SlotAccess.roundTrip`.
    @inline(__always)
    func roundTrip(atSlot slot: Int, of object: ManagedObject, write: Bool) -> Bool {
        fields[slot].access.roundTrip(at: wrapper(atSlot: slot, of: object), write: write)
    }

    /// Whether the slot holds a value (is set and loaded).
    @inline(__always)
    func isSet(atSlot slot: Int, of object: ManagedObject) -> Bool {
        fields[slot].access.isSet(at: UnsafeRawPointer(wrapper(atSlot: slot, of: object)))
    }

    // MARK: The process-wide cache

    private static let layouts = Locked<[ObjectIdentifier: ObjectLayout]>([:])

    static func of(_ type: ManagedObject.Type) -> ObjectLayout {
        layouts.withLock { cache in
            if let layout = cache[ObjectIdentifier(type)] { return layout }
            WrapperHeader.checkLayout()
            let layout = ObjectLayout(type: type)
            cache[ObjectIdentifier(type)] = layout
            return layout
        }
    }
}

/// `_EachFieldOptions.classType`, spelled by value: the standard library declares it as a
/// mutable static, which strict concurrency will not read.
private let classFields = _EachFieldOptions(rawValue: 1 << 0)

/// The stored property every Stash wrapper starts with: its slot (an attribute's or to-one
/// relationship's position among the entity's columns; a to-many relationship's index among
/// the to-many ones).
struct WrapperHeader {
    var slot: Int

    /// Traps if the compiler laid a wrapper out differently from this header: then nothing
    /// here would be safe. Checked once, when the first layout is made.
    static func checkLayout() {
        precondition(
            MemoryLayout<Attribute<Int8>>.offset(of: \Attribute<Int8>.slot) == 0
                && MemoryLayout<Attribute<String?>>.offset(of: \Attribute<String?>.slot) == 0,
            "Stash: @Attribute's layout is not what ObjectLayout expects")
        precondition(
            MemoryLayout<Relationship<ManagedObject?>>.offset(of: \Relationship<ManagedObject?>.slot) == 0
                && MemoryLayout<Relationship<[ManagedObject]>>.offset(of: \Relationship<[ManagedObject]>.slot) == 0,
            "Stash: @Relationship's layout is not what ObjectLayout expects")
    }
}
