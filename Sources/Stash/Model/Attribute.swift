import Synchronization

/// A stored attribute of a `ManagedObject`: one column of the entity's table, one key of
/// its JSON.
///
/// ```swift
/// final class Article: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Attribute(key: "headline") var title: String   // the JSON key, when not the Swift name
///     @Attribute var summary: String?                 // NULL column; absent or null key is nil
///     @Attribute var read: Bool = false               // used when the key is absent
///     @Attribute(.indexed) var publishedAt: Date      // an index for queries on it
///     @Attribute(key: "user.login") var login: String // inside a nested object
/// }
/// final class Tag: ManagedObject, Decodable {
///     @Attribute(.unique, normalized: [.trimmed, .caseFolded]) var name: String  // Swift = swift
///     @Attribute(.lossless) var count: Int = 0        // "7" is 7, as 7 is
/// }
/// ```
///
/// The wrapper keeps the value, typed, inside the object (`value`, `nil` while unset or not
/// loaded), and its slot, the attribute's position in its entity, which `ManagedObject.init`
/// writes (see `ObjectLayout`). Reads and writes go through the object (the enclosing-instance
/// subscript), so every assignment is seen by change tracking; the context reads and writes
/// every attribute of any object by slot through `ObjectLayout`, without reflection.
@propertyWrapper
public struct Attribute<Value: Codable> {
    // The slot comes first: `ObjectLayout` writes it in place (see `WrapperHeader`).
    @usableFromInline var slot: Int
    /// The value; `nil` means never set (an optional attribute's `nil` is `.some(nil)`,
    /// never confused with unset) or, for an object that stands for a stored row, not
    /// loaded yet.
    @usableFromInline var value: Value?

    // Everything here is inlinable so that, in the model's module, it is specialized for
    // `Value`: reading an attribute is then a field load.

    /// An attribute with a default, used for new objects when the JSON has no such key.
    ///
    /// - Parameter options: `.unique` (the upsert key), `.indexed`.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = []) {
        value = wrappedValue
        slot = -1
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0 {
            slot = declareIfDescribing(AttributeDeclaration(options: options))
        }
    }

    /// An attribute without a default. If `Value` is optional, it is `nil` (a NULL column)
    /// until set; otherwise decoding fails if its key is missing, and saving fails if it
    /// was never set.
    @inlinable
    public init(_ options: AttributeOptions = []) {
        // Swift picks this initializer for optionals too (a constrained overload loses to
        // a non-generic one), so an optional starts "unset" and reads as nil.
        value = nil
        slot = -1
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0 {
            slot = declareIfDescribing(AttributeDeclaration(options: options))
        }
    }

    /// An attribute with a default and several options, `@Attribute(.indexed, .lossless)`, as
    /// `@Attribute([.indexed, .lossless])` writes them.
    @inlinable
    public init(
        wrappedValue: Value, _ first: AttributeOptions, _ second: AttributeOptions, _ more: AttributeOptions...
    ) {
        self.init(wrappedValue: wrappedValue, more.reduce(first.union(second)) { $0.union($1) })
    }

    /// An attribute without a default and with several options: `@Attribute(.unique, .lossless)`.
    @inlinable
    public init(_ first: AttributeOptions, _ second: AttributeOptions, _ more: AttributeOptions...) {
        self.init(more.reduce(first.union(second)) { $0.union($1) })
    }

    // The forms with a JSON key or an original name are separate initializers, so that the
    // common ones above take no strings to release on every object built.

    /// An attribute with a default, whose JSON key is not its name, or whose column had
    /// another name in an earlier version of the model.
    ///
    /// - Parameters:
    ///   - key: the JSON key as it appears in the JSON: `"author_id"` works with and without
    ///     `.convertFromSnakeCase`. Encoding uses it too.
    ///   - originalName: the column's name in an earlier version of the model: opening an
    ///     older store renames the column, keeping its data.
    ///   - normalized: the form a `String` attribute's values are kept in (see
    ///     `AttributeNormalization`).
    public init(
        wrappedValue: Value, _ options: AttributeOptions = [], key: String, originalName: String? = nil,
        normalized: AttributeNormalization? = nil
    ) {
        self.init(wrappedValue: wrappedValue, options)
        redeclare(options, key: key, originalName: originalName, normalized: normalized)
    }

    /// An attribute with a default whose column had another name in an earlier version of
    /// the model: opening an older store renames the column, keeping its data.
    public init(
        wrappedValue: Value, _ options: AttributeOptions = [], originalName: String,
        normalized: AttributeNormalization? = nil
    ) {
        self.init(wrappedValue: wrappedValue, options)
        redeclare(options, originalName: originalName, normalized: normalized)
    }

    /// An attribute with a default whose `String` values are kept in one form:
    /// `@Attribute(normalized: .trimmed) var label = ""` (see `AttributeNormalization`).
    public init(wrappedValue: Value, _ options: AttributeOptions = [], normalized: AttributeNormalization) {
        self.init(wrappedValue: wrappedValue, options)
        redeclare(options, normalized: normalized)
    }

    /// An attribute without a default whose JSON key is not its name (`key`), or whose
    /// column had another name in an earlier version of the model (`originalName`), or
    /// whose `String` values are kept in one form (`normalized`).
    public init(
        _ options: AttributeOptions = [], key: String, originalName: String? = nil,
        normalized: AttributeNormalization? = nil
    ) {
        self.init(options)
        redeclare(options, key: key, originalName: originalName, normalized: normalized)
    }

    /// An attribute without a default whose column had another name in an earlier version
    /// of the model: opening an older store renames the column, keeping its data.
    public init(_ options: AttributeOptions = [], originalName: String, normalized: AttributeNormalization? = nil) {
        self.init(options)
        redeclare(options, originalName: originalName, normalized: normalized)
    }

    /// An attribute without a default whose `String` values are kept in one form:
    /// `@Attribute(.unique, normalized: [.trimmed, .caseFolded]) var name: String` makes
    /// `Swift`, `swift` and ` SWIFT` one row (see `AttributeNormalization`).
    public init(_ options: AttributeOptions = [], normalized: AttributeNormalization) {
        self.init(options)
        redeclare(options, normalized: normalized)
    }

    private func redeclare(
        _ options: AttributeOptions, key: String? = nil, originalName: String? = nil,
        normalized: AttributeNormalization? = nil
    ) {
        guard slot >= 0 else { return }
        var declaration = AttributeDeclaration(options: options, key: key, originalName: originalName)
        declaration.normalization = normalized
        ConstructionFrame.current.redeclare(declaration, at: slot)
    }

    @available(*, unavailable, message: "@Attribute is only for the stored properties of a ManagedObject subclass")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Reads and writes go through the object: a stand-in reads and writes the object it
    /// stands in for, a read of a value not loaded loads it, a write is a change.
    ///
    /// Inlinable so that, in the model's module, the access to the wrapper through
    /// `storageKeyPath` (a key path literal) folds into a plain field access.
    @inlinable
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance owner: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Value {
        // Always inlined into the property's accessor, where the key path is a literal.
        @inline(__always) get {
            let slot = owner[keyPath: storageKeyPath].slot
            // Neither the owner's type nor the key path leaves this function: the key path
            // then folds into a field access, where passing it on would build it every read.
            if owner.standIn != nil { return standInValue(owner, atSlot: slot) }
            #if DEBUG
                owner.checkRead(atSlot: slot)
            #endif
            if owner.isObserved { owner.observeAccess(atSlot: slot) }
            if let value = owner[keyPath: storageKeyPath].value { return value }
            return unboxed(owner.valueOfUnsetAttribute(atSlot: slot))
        }
        @inline(__always) set {
            owner.setValue(newValue as Any, atSlot: owner[keyPath: storageKeyPath].slot)
        }
    }

    /// A stand-in's read: the value of the object it stands in for (see
    /// `UniqueResolver.standIn`), which is of the same class.
    @usableFromInline
    static func standInValue(_ owner: ManagedObject, atSlot slot: Int) -> Value {
        let object = owner.resolved
        #if DEBUG
            object.checkRead(atSlot: slot)
        #endif
        if object.isObserved { object.observeAccess(atSlot: slot) }
        if let value = object.value(atSlot: slot) { return unboxed(value) }
        return unboxed(object.valueOfUnsetAttribute(atSlot: slot))
    }
}

@usableFromInline
func attributeOutsideManagedObject() -> Never {
    fatalError("@Attribute is only for the stored properties of a ManagedObject subclass")
}

/// What schema building and the context need from a Stash property wrapper type.
protocol ManagedProperty: SendableMetatype {
    /// How the context reads and writes the wrapper's value (to-many relationships keep
    /// none: never asked).
    static var slotAccess: SlotAccess { get }
    /// The codec for the wrapped type, built once per entity.
    static func makeCodec() throws -> any AttributeCodec
    /// `true` for a to-many relationship, which has no slot (it keeps no value).
    static var isToMany: Bool { get }
    /// The target's class, for a to-one relationship; `nil` for anything else.
    static var toOneTargetType: ManagedObject.Type? { get }
}

extension ManagedProperty {
    static var isToMany: Bool { false }
    static var toOneTargetType: ManagedObject.Type? { nil }
}

extension Attribute: ManagedProperty {
    static func makeCodec() throws -> any AttributeCodec {
        try makeAttributeCodec(for: Value.self)
    }
}

/// How many entities are being described, on any thread: while none is, a wrapper's
/// initializer does not look for its thread's `ConstructionFrame` at all.
@usableFromInline
let entitiesBeingDescribed = Atomic<Int>(0)

/// Records `declaration` if this thread is describing an entity: its number among the
/// declarations the frame holds, which the wrapper keeps as its slot until
/// `ManagedObject.init` reads it (see `ObjectLayout.assignSlots`); -1 otherwise.
@usableFromInline
func declareIfDescribing(_ declaration: AttributeDeclaration) -> Int {
    let frame = ConstructionFrame.current
    guard frame.isDescribing else { return -1 }
    return frame.declare(declaration)
}
