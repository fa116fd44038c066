import Foundation

/// `#Predicate { $0.id == id }`, the look-up most fetches are, translated without the walk:
/// the same `QueryExpression` the walk gives (`compare` of the attribute's column with the
/// constant as stored), found from the predicate's type once and its key path and value.
/// Anything else (an optional attribute, a date or a decimal, whose comparisons move or
/// order otherwise, a relationship, `nil`) takes the walk.
extension PredicateTranslator {
    /// The translation of `predicate` if it is `$0.attribute == constant` on a plain
    /// attribute; `nil` to walk it.
    static func keyEquality<T>(_ predicate: Predicate<T>, for entity: EntityDescription) -> QueryExpression? {
        keyEquality(predicate.expression, input: predicate.variable.key, for: entity)
    }

    /// `keyEquality` of a predicate's expression, `input` standing for each row.
    static func keyEquality(
        _ expression: any StandardPredicateExpression<Bool>, input: PredicateExpressions.VariableID,
        for entity: EntityDescription
    ) -> QueryExpression? {
        keyEqualityParts(expression, input: input, for: entity).map { .columnEquals($0.column, $0.value) }
    }

    /// `keyEquality`'s column and the value it compares with, before they are made an
    /// expression: a fetch with nothing else to say reads those rows by the column.
    static func keyEqualityParts(
        _ expression: any StandardPredicateExpression<Bool>, input: PredicateExpressions.VariableID,
        for entity: EntityDescription
    ) -> (column: Int, value: StoredValue)? {
        guard let reader = keyEqualityReader(of: type(of: expression)),
            let (variable, keyPath, constant) = reader.parts(of: expression),
            variable == input,
            case .attribute(let attribute)? = try? entity.member(for: keyPath),
            let value = keyEqualityValue(of: attribute, to: constant, for: entity)
        else { return nil }
        return (attribute.index, value)
    }

    /// The stored value `keyEquality` compares the attribute's column with: `attribute ==
    /// constant` as the walk translates it, if the attribute is a plain one and the constant a
    /// stored value; `nil` to walk it.
    static func keyEqualityValue(of attribute: AttributeDescription, to constant: Any?, for entity: EntityDescription)
        -> StoredValue?
    {
        // A constant that is no stored value (or `nil`) is the walk's to refuse or answer.
        guard isKeyEqualityAttribute(attribute, of: entity), let constant else { return nil }
        return try? PredicateTranslator(entity: entity).storedValue(constant)
    }

    /// Whether `== constant` on `attribute` is a plain comparison with its column: not for an
    /// optional attribute (`IS`), a date (moved to the millisecond) or a decimal (by value), nor
    /// a relationship.
    static func isKeyEqualityAttribute(_ attribute: AttributeDescription, of entity: EntityDescription) -> Bool {
        guard entity.relationship(atSlot: attribute.index) == nil, !attribute.isOptional else { return false }
        switch attribute.codec.queryKind {
        case .date, .decimal: return false
        default: return true
        }
    }

    /// Each expression type's reader, `nil` for a type of another shape: found once per type
    /// by a conformance check, as `translations` are.
    private static let keyEqualityReaders = Locked<[ObjectIdentifier: (any KeyEqualityReader)?]>([:])

    private static func keyEqualityReader(of type: Any.Type) -> (any KeyEqualityReader)? {
        let key = ObjectIdentifier(type)
        if let known = keyEqualityReaders.withLock({ $0[key] }) { return known }
        let reader = (type as? any KeyEqualityExpression.Type).map { Self.reader(for: $0) }
        keyEqualityReaders.withLock { $0[key] = reader }
        return reader
    }

    private static func reader<Expression: KeyEqualityExpression>(for type: Expression.Type) -> any KeyEqualityReader {
        TypedKeyEqualityReader<Expression>()
    }
}

/// Reads a key equality's variable, key path and constant (unwrapped; `nil` for `nil`).
/// A class: the table of readers hands one out as a reference, where a struct in an
/// existential was copied through its type's witnesses at each look-up (125 instructions).
protocol KeyEqualityReader: AnyObject, Sendable {
    func parts<Expression: PredicateExpression>(of expression: Expression) -> (
        PredicateExpressions.VariableID, AnyKeyPath, Any?
    )?
}

/// The reader of one expression type. The expression comes as its own type (the existential
/// opened) and is taken as `Shape` when it is one, without the runtime's cast: a cast from
/// `Any` cost 1,500 instructions of a 65,000-instruction look-up (stash-bench, callgrind).
final class TypedKeyEqualityReader<Shape: KeyEqualityExpression>: KeyEqualityReader {
    func parts<Expression: PredicateExpression>(of expression: Expression) -> (
        PredicateExpressions.VariableID, AnyKeyPath, Any?
    )? {
        guard Expression.self == Shape.self else { return nil }
        // The same type, so the value is a `Shape` as it is.
        let shape = withUnsafePointer(to: expression) {
            $0.withMemoryRebound(to: Shape.self, capacity: 1) { $0.pointee }
        }
        return (shape.lhs.variableID, shape.lhs.anyKeyPath, shape.rhs.unwrappedValue)
    }
}

/// `variable.keyPath == constant`.
protocol KeyEqualityExpression: SendableMetatype {
    associatedtype LHS: VariableKeyPathExpression
    associatedtype RHS: ConstantExpression
    var lhs: LHS { get }
    var rhs: RHS { get }
}

extension PredicateExpressions.Equal: KeyEqualityExpression
where LHS: VariableKeyPathExpression, RHS: ConstantExpression {}

/// A key path applied to a variable: `$0.id`.
protocol VariableKeyPathExpression {
    var variableID: PredicateExpressions.VariableID { get }
    var anyKeyPath: AnyKeyPath { get }
}

extension PredicateExpressions.KeyPath: VariableKeyPathExpression where Root: VariableExpression {
    var variableID: PredicateExpressions.VariableID { root.variableID }
    var anyKeyPath: AnyKeyPath { keyPath }
}

/// A predicate's variable: its input, or a closure's argument.
protocol VariableExpression {
    var variableID: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: VariableExpression {
    var variableID: PredicateExpressions.VariableID { key }
}

/// A captured constant.
protocol ConstantExpression {
    /// The value inside any `Optional`s, `nil` if there is none (`unwrappedConstant`).
    var unwrappedValue: Any? { get }
}

extension PredicateExpressions.Value: ConstantExpression {
    var unwrappedValue: Any? { unwrappedConstant(value) }
}
