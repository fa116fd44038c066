/// A stored attribute of a `ManagedObject`: one column of the entity's table, one key of
/// its JSON.
///
/// ```swift
/// final class Article: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Attribute var title: String
///     @Attribute var summary: String?        // NULL column; absent or null key is nil
///     @Attribute var read: Bool = false      // used when the key is absent
/// }
/// ```
///
/// The wrapper keeps no value: values live in the object, in the slot the wrapper was
/// given when the object was built (see `ConstructionFrame`). So the context can read and
/// write every attribute of any object by slot, without reflection, and every assignment
/// through the property is seen by change tracking.
@propertyWrapper
public struct Attribute<Value: Codable> {
    let slot: Int
    let options: AttributeOptions

    /// An attribute with a default, used for new objects when the JSON has no such key.
    public init(wrappedValue: Value, _ options: AttributeOptions = []) {
        self.options = options
        slot = ConstructionFrame.current.append(wrappedValue)
    }

    /// An attribute without a default. If `Value` is optional, it is `nil` (a NULL column)
    /// until set; otherwise decoding fails if its key is missing, and saving fails if it
    /// was never set.
    public init(_ options: AttributeOptions = []) {
        self.options = options
        // Swift picks this initializer for optionals too (a constrained overload loses to
        // a non-generic one), so an optional starts "unset" and reads as nil.
        slot = ConstructionFrame.current.appendUnset()
    }

    @available(*, unavailable, message: "@Attribute can only be used in a ManagedObject subclass")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let slot = object[keyPath: storageKeyPath].slot
            guard let value = object.values[slot] else {
                return object.valueOfUnsetAttribute(atAbsoluteSlot: slot) as! Value
            }
            return value as! Value
        }
        set {
            object.setValue(newValue as Any, atAbsoluteSlot: object[keyPath: storageKeyPath].slot)
        }
    }
}

/// What schema building needs from an `@Attribute` it finds by reflection, whatever its
/// `Value`.
protocol AttributeWrapper {
    var slot: Int { get }
    var options: AttributeOptions { get }
    /// The codec for `Value`, built once per entity.
    func makeCodec() throws -> any AttributeCodec
}

extension Attribute: AttributeWrapper {
    func makeCodec() throws -> any AttributeCodec {
        try makeAttributeCodec(for: Value.self)
    }
}
