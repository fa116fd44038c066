@_spi(Reflection) import Swift

/// Where the instances of one model class keep their Stash wrappers, read once per class
/// from the runtime's field metadata: each wrapper field's name, byte offset and type.
///
/// It is what lets an object check, as it is initialized, that the value box it was offered
/// is exactly the one its own wrappers filled, and otherwise gather its values from its
/// wrappers into a box of its own and point them there. Every wrapper type starts with the
/// same two stored properties, the box and the slot (`WrapperHeader`); that is all this
/// reads or writes.
final class ObjectLayout: Sendable {
    let type: ManagedObject.Type
    /// The wrapper fields in slot order: the order Swift initializes them in, which is the
    /// most derived class's first, each class's in declaration order. Attributes and to-one
    /// relationships: each has a slot in the value box.
    let fields: [Field]
    /// The to-many relationship fields, in the same order: they keep no value in the box,
    /// only their index (see `Relationship`).
    let toManyFields: [Field]
    /// Whether the class or a superclass below `ManagedObject` stores properties of its own
    /// besides Stash wrappers (a cache, a formatter): what they hold is not Stash's to vouch
    /// for, so its objects never move to another context (`DetachedObject`).
    let hasOtherStoredProperties: Bool

    struct Field: Sendable {
        /// The property's name (the field's, without the wrapper's leading underscore).
        let name: String
        /// Byte offset of the wrapper in an instance.
        let offset: Int
        let wrapperType: any ManagedProperty.Type
    }

    var count: Int { fields.count }

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
                    name: String(String(cString: name).dropFirst()), offset: offset, wrapperType: wrapperType)
                if wrapperType.isToMany {
                    toManyFields.append(field)
                } else {
                    fields.append(field)
                }
                return true
            }
        }
        self.fields = fields
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

    // MARK: Claiming a box

    /// The box `object` keeps: `offered` (the box the thread's wrappers filled) when the
    /// object's wrappers put exactly their values there, which is the common case and costs
    /// one field read; otherwise a new box gathered from wherever they put them.
    func claim(_ offered: ObjectStorage?, for object: ManagedObject) -> ObjectStorage {
        guard let first = fields.first ?? toManyFields.first else { return ObjectStorage(capacity: 0) }
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        if let offered, offered.values.count == fields.count, offered.toManyCount == toManyFields.count,
            header(of: first, in: base).pointee.storage === offered
        {
            // A box holds only values appended since the last object on this thread claimed
            // one; with one of ours in it and its size ours, every value in it is ours.
            assert(isExactly(offered, base), "\(type)'s wrappers do not own the box they filled")
            return offered
        }
        return gather(base)
    }

    /// Copies each wrapper's value into a new box, in slot order, and points the wrapper at it.
    private func gather(_ base: UnsafeMutableRawPointer) -> ObjectStorage {
        let box = ObjectStorage(capacity: fields.count)
        for (slot, field) in fields.enumerated() {
            let header = header(of: field, in: base)
            let source = header.pointee.storage
            let sourceSlot = header.pointee.slot
            _ = box.append(source.values[sourceSlot])
            if let declaration = source.declarations?[sourceSlot] {
                box.declarations = box.declarations ?? [:]
                box.declarations?[slot] = declaration
            }
            header.pointee.storage = box
            header.pointee.slot = slot
        }
        for (index, field) in toManyFields.enumerated() {
            let header = header(of: field, in: base)
            if let declaration = header.pointee.storage.toManyDeclarations?[header.pointee.slot] {
                box.toManyDeclarations = box.toManyDeclarations ?? [:]
                box.toManyDeclarations?[index] = declaration
            }
            header.pointee.storage = box
            header.pointee.slot = index
        }
        box.toManyCount = toManyFields.count
        return box
    }

    private func isExactly(_ box: ObjectStorage, _ base: UnsafeMutableRawPointer) -> Bool {
        [fields, toManyFields].allSatisfy { fields in
            fields.enumerated().allSatisfy { slot, field in
                let header = header(of: field, in: base).pointee
                return header.storage === box && header.slot == slot
            }
        }
    }

    /// Points an object's wrappers at another box, slot for slot: how an object made by the
    /// hand-written `init(from:)` becomes a stand-in for the context's object for its row.
    func repoint(_ object: ManagedObject, to box: ObjectStorage) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for fields in [fields, toManyFields] {
            for (slot, field) in fields.enumerated() {
                let header = header(of: field, in: base)
                header.pointee.storage = box
                header.pointee.slot = slot
            }
        }
    }

    private func header(of field: Field, in base: UnsafeMutableRawPointer) -> UnsafeMutablePointer<WrapperHeader> {
        (base + field.offset).assumingMemoryBound(to: WrapperHeader.self)
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

/// The stored properties every Stash wrapper starts with, in this order.
struct WrapperHeader {
    var storage: ObjectStorage
    var slot: Int

    /// Traps if the compiler laid a wrapper out differently from this header: then nothing
    /// here would be safe. Checked once, when the first layout is made.
    static func checkLayout() {
        precondition(
            MemoryLayout<Attribute<Int8>>.offset(of: \Attribute<Int8>.storage) == 0
                && MemoryLayout<Attribute<String?>>.offset(of: \Attribute<String?>.slot)
                    == MemoryLayout<WrapperHeader>.offset(of: \WrapperHeader.slot),
            "Stash: @Attribute's layout is not what ObjectLayout expects")
        precondition(
            MemoryLayout<Relationship<ManagedObject?>>.offset(of: \Relationship<ManagedObject?>.storage) == 0
                && MemoryLayout<Relationship<[ManagedObject]>>.offset(of: \Relationship<[ManagedObject]>.slot)
                    == MemoryLayout<WrapperHeader>.offset(of: \WrapperHeader.slot),
            "Stash: @Relationship's layout is not what ObjectLayout expects")
    }
}
