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
/// The wrapper keeps no value: values live in the object's box, in the slot the wrapper
/// was given when the object was built (see `ConstructionFrame`). So the context can read
/// and write every attribute of any object by slot, without reflection, and every
/// assignment through the property is seen by change tracking.
@propertyWrapper
public struct Attribute<Value: Codable> {
    // These two come first, in this order: `ObjectLayout` reads and repoints them in place
    // (see `WrapperHeader`).
    @usableFromInline var storage: ObjectStorage
    @usableFromInline var slot: Int

    // Everything here is inlinable so that, in the model's module, it is specialized for
    // `Value`: reading an attribute is then an array load and a cast.

    /// An attribute with a default, used for new objects when the JSON has no such key.
    ///
    /// - Parameter options: `.unique` (the upsert key), `.indexed`.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = []) {
        let frame = ConstructionFrame.unretainedCurrent
        let box = frame._withUnsafeGuaranteedRef { $0.currentBox() }
        slot = box.values.count
        // As `Any`, so that an optional's `nil` is kept as a value, distinct from unset.
        box.values.append(wrappedValue as Any)
        storage = box
        if frame._withUnsafeGuaranteedRef({ $0.isDescribing }) {
            frame.takeUnretainedValue().declare(AttributeDeclaration(options: options), in: box, at: slot)
        }
    }

    /// An attribute without a default. If `Value` is optional, it is `nil` (a NULL column)
    /// until set; otherwise decoding fails if its key is missing, and saving fails if it
    /// was never set.
    @inlinable
    public init(_ options: AttributeOptions = []) {
        let frame = ConstructionFrame.unretainedCurrent
        let box = frame._withUnsafeGuaranteedRef { $0.currentBox() }
        slot = box.values.count
        // Swift picks this initializer for optionals too (a constrained overload loses to
        // a non-generic one), so an optional starts "unset" and reads as nil.
        box.values.append(nil)
        storage = box
        if frame._withUnsafeGuaranteedRef({ $0.isDescribing }) {
            frame.takeUnretainedValue().declare(AttributeDeclaration(options: options), in: box, at: slot)
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
        let frame = ConstructionFrame.current
        guard frame.isDescribing else { return }
        var declaration = AttributeDeclaration(options: options, key: key, originalName: originalName)
        declaration.normalization = normalized
        frame.declare(declaration, in: storage, at: slot)
    }

    @inlinable
    public var wrappedValue: Value {
        get {
            #if DEBUG
                storage.checkRead(atSlot: slot)
            #endif
            if storage.isObserved { owner.observeAccess(atSlot: slot) }
            if let value = storage.inlineValue(at: slot, as: Value.self) { return value }
            guard let value = storage.values[slot] else {
                return unboxed(owner.valueOfUnsetAttribute(atSlot: slot))
            }
            return unboxed(value)
        }
        nonmutating set {
            owner.setValue(newValue as Any, atSlot: slot)
        }
    }

    @inlinable
    var owner: ManagedObject {
        guard let owner = storage.owner else { attributeOutsideManagedObject() }
        return owner
    }
}

@usableFromInline
func attributeOutsideManagedObject() -> Never {
    fatalError("@Attribute is only for the stored properties of a ManagedObject subclass")
}

/// What schema building needs from a Stash property wrapper type.
protocol ManagedProperty: SendableMetatype {
    /// The codec for the wrapped type, built once per entity.
    static func makeCodec() throws -> any AttributeCodec
    /// `true` for a to-many relationship, which has no slot in the value box.
    static var isToMany: Bool { get }
}

extension ManagedProperty {
    static var isToMany: Bool { false }
}

extension Attribute: ManagedProperty {
    static func makeCodec() throws -> any AttributeCodec {
        try makeAttributeCodec(for: Value.self)
    }
}
