import Foundation

/// Turns a `Predicate` into a `QueryExpression` the store evaluates, as swift-foundation's
/// `NSPredicateConversion` walks a predicate: one translation per expression type
/// (`PredicateTranslatable`), this state passed `inout`, and any subtree that does not read
/// the predicate's input folded to a constant by evaluating it in Swift. Anything else is an
/// `unsupportedQuery` error naming the expression: never a silent in-memory fallback.
///
/// The answers are Swift's, with one documented rule: text is compared by its code points
/// (UTF-8 bytes), as the store keeps it, so `==`, `<`, `contains` and `starts(with:)` tell
/// apart two spellings Swift calls canonically equivalent (precomposed "é" and e + U+0301).
struct PredicateTranslator {
    let entity: EntityDescription
    /// What each variable of the predicate stands for.
    private var bindings: [PredicateExpressions.VariableID: QueryTerm] = [:]

    /// The predicate as a condition on the entity's rows.
    static func translate<T>(_ predicate: Predicate<T>, for entity: EntityDescription) throws -> QueryExpression {
        var translator = PredicateTranslator(entity: entity)
        translator.bindings[predicate.variable.key] = .input
        return try translator.condition(translator.translate(predicate.expression))
    }

    private init(entity: EntityDescription) {
        self.entity = entity
    }

    // MARK: Walking

    /// The term for a subexpression: its own translation, or its value if it reads no input.
    mutating func translate(_ expression: some PredicateExpression) throws -> QueryTerm {
        if let translatable = expression as? any PredicateTranslatable {
            return try translatable.translate(&self)
        }
        return try fold(expression)
    }

    /// Evaluates an expression that reads none of the predicate's variables.
    func fold<Expression: PredicateExpression>(_ expression: Expression) throws -> QueryTerm {
        do {
            return .constant(try expression.evaluate(PredicateBindings()))
        } catch {
            throw unsupported(expression, "the store cannot evaluate it")
        }
    }

    func binding(of variable: PredicateExpressions.VariableID) -> QueryTerm? {
        bindings[variable]
    }

    /// Runs `body` with `variable` standing for `term` (a closure's argument).
    mutating func binding<Result>(
        _ variable: PredicateExpressions.VariableID, to term: QueryTerm, _ body: (inout Self) throws -> Result
    ) rethrows -> Result {
        let previous = bindings[variable]
        bindings[variable] = term
        defer { bindings[variable] = previous }
        return try body(&self)
    }

    func unsupported(_ expression: some PredicateExpression, _ reason: String) -> StashError {
        let name = String(describing: type(of: expression)).split(separator: "<").first.map(String.init) ?? "expression"
        return StashError(
            .unsupportedQuery, "\(name) in a predicate: \(reason)", entity: entity.name)
    }

    // MARK: Terms

    /// The term as a condition: a boolean expression with two values.
    func condition(_ term: QueryTerm) throws -> QueryExpression {
        switch term {
        case .constant(let value):
            guard let value = value as? Bool else {
                throw StashError(.unsupportedQuery, "a predicate must be a Bool", entity: entity.name)
            }
            return value ? .true : .false
        case .input:
            throw StashError(.unsupportedQuery, "a predicate cannot test the object itself", entity: entity.name)
        case .expression(let expression, let kind, let optional):
            // A Bool column, or a Bool made by a flatMap: true only when it is 1.
            if kind == .bool, optional { return .identical(expression, .true, .stored) }
            if kind == .bool, case .column = expression { return .compare(expression, .notEqual, .false, .stored) }
            return expression
        }
    }

    /// The expression of a term, a constant bound as a parameter.
    func expression(_ term: QueryTerm) throws -> QueryExpression {
        switch term {
        case .constant(let value): return .value(try storedValue(value))
        case .input:
            throw StashError(
                .unsupportedQuery, "a predicate cannot use the object itself as a value", entity: entity.name)
        case .expression(let expression, _, _): return expression
        }
    }

    /// A Swift value as the store keeps it: as an attribute of its type would be stored.
    func storedValue(_ value: Any?) throws -> StoredValue {
        guard let value = unwrapped(value) else { return .null }
        switch value {
        case let storable as any StorableValue:
            return try storable.storedValue()
        case let enumeration as any RawRepresentable:
            return try storedValue(enumeration.rawValue)
        case let encodable as any Encodable:
            return try JSONTextCodec<EncodableBox>.text(of: EncodableBox(encodable))
        default:
            throw StashError(
                .unsupportedQuery, "a constant of type \(type(of: value)) cannot be stored", entity: entity.name)
        }
    }
}

/// A translated subexpression.
enum QueryTerm {
    /// A value Swift knows already (the subexpression reads no input); `nil` is `nil`.
    case constant(Any?)
    /// The predicate's object itself: only a key path may start from it.
    case input
    /// An expression the store evaluates; `optional` when it can be NULL.
    case expression(QueryExpression, kind: QueryKind, optional: Bool)

    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }

    var kind: QueryKind? {
        if case .expression(_, let kind, _) = self { return kind }
        return nil
    }

    var isOptional: Bool {
        switch self {
        case .constant(let value): unwrapped(value) == nil
        case .input: false
        case .expression(_, _, let optional): optional
        }
    }
}

/// One translation per expression type.
protocol PredicateTranslatable: PredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm
}

/// The value inside any number of `Optional`s, `nil` if there is none.
func unwrapped(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any OptionalValue { return unwrapped(optional.wrappedValue) }
    return value
}

private protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}

/// Any `Encodable` value, so that a constant of a type Stash keeps as JSON text (an array
/// compared with an array attribute) is encoded as that attribute's values are.
struct EncodableBox: Codable {
    let value: any Encodable

    init(_ value: any Encodable) { self.value = value }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "encode only"))
    }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
