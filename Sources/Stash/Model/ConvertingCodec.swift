import Foundation

/// The codec of an attribute declared `.lossless` or `normalized:`: the codec its type has,
/// with the declared conversion on the way in.
///
/// Chosen once per attribute when the entity is described, so attributes that declare
/// neither keep their own codec and pay nothing; these pay one more virtual call.
struct ConvertingCodec: AttributeCodec {
    let base: any AttributeCodec
    /// For `.lossless`: the conversions of the value type (the wrapped one, for an optional).
    let lossless: (any LosslessScalar.Type)?
    let normalization: AttributeNormalization?

    /// `codec` with what `declaration` adds, or `codec` itself; throws for a declaration its
    /// type cannot take, or a default that is not in the declared form.
    static func wrapping(_ codec: any AttributeCodec, for declaration: AttributeDeclaration, defaultValue: Any?)
        throws -> any AttributeCodec
    {
        let isLossless = declaration.options.contains(.lossless)
        guard isLossless || declaration.normalization != nil else { return codec }
        let type = (codec.valueType as? any OptionalAttributeValue.Type)?.wrappedType ?? codec.valueType
        var lossless: (any LosslessScalar.Type)?
        if isLossless {
            guard let scalar = type as? any LosslessScalar.Type else {
                throw StashError(
                    .invalidModel,
                    ".lossless converts scalars only (String, integers, Double, Float, Bool, Decimal), not \(codec.typeName)"
                )
            }
            lossless = scalar
        }
        if let normalization = declaration.normalization {
            guard type == String.self else {
                throw StashError(.invalidModel, "normalized: is for String attributes, not \(codec.typeName)")
            }
            if let text = defaultValue as? String, normalization.normalize(text) != text {
                throw StashError(
                    .invalidModel,
                    "the default \"\(text)\" is not in its normalized form: write \"\(normalization.normalize(text))\"")
            }
        }
        return ConvertingCodec(base: codec, lossless: lossless, normalization: declaration.normalization)
    }

    var storedType: StoredType { base.storedType }
    var holdsPlainValues: Bool { base.holdsPlainValues }
    var isOptional: Bool { base.isOptional }
    var nilValue: Any { base.nilValue }
    var typeName: String { base.typeName }
    var valueType: Any.Type { base.valueType }
    var queryKind: QueryKind { base.queryKind }

    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        let value: Any
        do {
            value = try base.decode(from: container, forKey: key)
        } catch DecodingError.typeMismatch(let type, let context) {
            guard let converted = lossless?.losslessValue(from: container, forKey: key) else {
                throw DecodingError.typeMismatch(type, context)
            }
            value = converted
        }
        return normalized(value)
    }

    /// The value in the declared form: what the setter keeps, and what decoding gives.
    func normalized(_ value: Any) -> Any {
        guard let normalization, let text = value as? String else { return value }
        return normalization.normalize(text)
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {
        try base.encode(value, to: &container, forKey: key)
    }

    func storedValue(for value: Any) throws -> StoredValue { try base.storedValue(for: value) }

    /// Normalized too: a reference to the value in another object's JSON (`"tag": "SWIFT"`)
    /// is read through here. Rows hold the normalized form already, so it changes nothing there.
    func value(from storedValue: StoredValue) throws -> Any { normalized(try base.value(from: storedValue)) }

    func read(_ row: any StoreRow, column: Int) throws -> Any { try base.read(row, column: column) }

    func placeholder() -> Any? { base.placeholder() }
}

/// A scalar type `.lossless` converts to from JSON of another scalar kind.
protocol LosslessScalar: SendableMetatype {
    /// The value the JSON at `key` stands for exactly, when it is of another kind than the
    /// type decodes; `nil` if it is not one.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any?
}

extension String: LosslessScalar {
    /// A number's digits: the integer's, or the exact decimal value's (`1.5`, `1e3` is `1000`).
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        if let integer = try? container.decode(Int64.self, forKey: key) { return String(integer) }
        if let integer = try? container.decode(UInt64.self, forKey: key) { return String(integer) }
        if let decimal = try? container.decode(Decimal.self, forKey: key), decimal.isFinite {
            return decimal.description
        }
        return nil
    }
}

extension LosslessScalar where Self: FixedWidthInteger {
    /// A string of a whole number in range: `"42"`, `"-7"`; not `"42.0"` nor `" 42"`.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        guard let text = try? container.decode(String.self, forKey: key), let value = Self(text) else { return nil }
        return value
    }
}

extension Int: LosslessScalar {}
extension Int8: LosslessScalar {}
extension Int16: LosslessScalar {}
extension Int32: LosslessScalar {}
extension Int64: LosslessScalar {}
extension UInt: LosslessScalar {}
extension UInt8: LosslessScalar {}
extension UInt16: LosslessScalar {}
extension UInt32: LosslessScalar {}
extension UInt64: LosslessScalar {}

extension Bool: LosslessScalar {
    /// `0` and `1`, `"true"` and `"false"`, `"0"` and `"1"`.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        if let number = try? container.decode(Int64.self, forKey: key) {
            switch number {
            case 0: return false
            case 1: return true
            default: return nil
            }
        }
        switch try? container.decode(String.self, forKey: key) {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }
}

extension Double: LosslessScalar {
    /// A string of a finite number: `"2.5"`, `"1e3"`.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        guard let text = try? container.decode(String.self, forKey: key), let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}

extension Float: LosslessScalar {
    /// A string of a finite number in `Float`'s range.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        guard let text = try? container.decode(String.self, forKey: key), let value = Float(text), value.isFinite
        else { return nil }
        return value
    }
}

extension Decimal: LosslessScalar {
    /// A string of a number, every digit kept: `"12.50"`.
    static func losslessValue(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) -> Any? {
        guard let text = try? container.decode(String.self, forKey: key), Double(text)?.isFinite == true,
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        return value
    }
}
