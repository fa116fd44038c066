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
    /// How many related rows' closures (`contains(where:)`) the translation is inside: the
    /// rows of scope 0 are the predicate's objects.
    private(set) var scope = 0

    /// The predicate as a condition on the entity's rows.
    static func translate<T>(_ predicate: Predicate<T>, for entity: EntityDescription) throws -> QueryExpression {
        try translate(predicate.expression, input: predicate.variable.key, for: entity)
    }

    /// A predicate's expression as a condition on the entity's rows, `input` standing for
    /// each row: what `translate` reads of a `Predicate`, taken apart where its type is known
    /// (`FetchParts`).
    static func translate(
        _ expression: any StandardPredicateExpression<Bool>, input: PredicateExpressions.VariableID,
        for entity: EntityDescription
    ) throws -> QueryExpression {
        if let lookUp = keyEquality(expression, input: input, for: entity) { return lookUp }
        return try walk(expression, input: input, for: entity)
    }

    /// `translate` without the look-up's shortcut: every expression by its own translation.
    static func walk<T>(_ predicate: Predicate<T>, for entity: EntityDescription) throws -> QueryExpression {
        try walk(predicate.expression, input: predicate.variable.key, for: entity)
    }

    static func walk(
        _ expression: any StandardPredicateExpression<Bool>, input: PredicateExpressions.VariableID,
        for entity: EntityDescription
    ) throws -> QueryExpression {
        var translator = PredicateTranslator(entity: entity)
        translator.bindings[input] = .row(entity, scope: 0)
        return try translator.condition(translator.translate(expression))
    }

    init(entity: EntityDescription) {
        self.entity = entity
    }

    // MARK: Walking

    /// The term for a subexpression: its own translation, or its value if it reads no input.
    mutating func translate<Expression: PredicateExpression>(_ expression: Expression) throws -> QueryTerm {
        guard let translation = Self.translation(of: Expression.self) else { return try fold(expression) }
        return try translation(expression, &self)
    }

    /// Translates an expression of one type, handed over as `Any`.
    typealias Translation = @Sendable (Any, inout PredicateTranslator) throws -> QueryTerm

    /// Each expression type's translation, `nil` for a type without one (folded), found once
    /// by a conformance check: a cast to `any PredicateTranslatable` costs far more than a
    /// look-up by type, and every node of every query needs one.
    private static let translations = Locked<[ObjectIdentifier: Translation?]>([:])

    private static func translation<Expression: PredicateExpression>(of type: Expression.Type) -> Translation? {
        let key = ObjectIdentifier(type)
        if let known = translations.withLock({ $0[key] }) { return known }
        let translation = (type as? any PredicateTranslatable.Type).map { translatable in
            Self.translation(for: translatable)
        }
        translations.withLock { $0[key] = translation }
        return translation
    }

    private static func translation<Translatable: PredicateTranslatable>(for type: Translatable.Type) -> Translation {
        { expression, translator in try (expression as! Translatable).translate(&translator) }
    }

    /// Evaluates an expression that reads none of the predicate's variables.
    func fold<Expression: PredicateExpression>(_ expression: Expression) throws -> QueryTerm {
        do {
            return .constant(unwrappedConstant(try expression.evaluate(PredicateBindings())))
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

    /// Runs `body` one scope in: the translation of a related row's expression.
    mutating func inScope<Result>(_ body: (inout Self) throws -> Result) rethrows -> Result {
        scope += 1
        defer { scope -= 1 }
        return try body(&self)
    }

    func unsupported(_ expression: some PredicateExpression, _ reason: String) -> StashError {
        let name = String(describing: type(of: expression)).split(separator: "<").first.map(String.init) ?? "expression"
        return StashError(
            .unsupportedQuery, "\(name) in a predicate: \(reason)", entity: entity.name)
    }

    // MARK: Terms

    /// A constant that depends on a part of the predicate that reads the object (`x && false`,
    /// a ternary's untaken branch) as an expression: only a constant of a subtree that reads
    /// nothing may be folded again by evaluating it.
    func derived(_ term: QueryTerm, kind: QueryKind) throws -> QueryTerm {
        guard case .constant(let value) = term else { return term }
        return .expression(try expression(term), kind: Self.kind(of: term, else: kind), optional: value == nil)
    }

    /// How a term's values compare: an expression's kind, or a constant's by its type.
    static func kind(of term: QueryTerm, else fallback: QueryKind = .other) -> QueryKind {
        switch term {
        case .expression(_, let kind, _): return kind
        case .row, .relatedObject, .relatedObjects: return fallback
        case .constant(let value):
            switch value {
            case is Bool: return .bool
            case is Float: return .float
            case is Double: return .real
            case is String: return .text
            case is Date: return .date
            case is Decimal: return .decimal
            case let integer as any BinaryInteger: return integer is any StorableValue ? .integer : fallback
            default: return fallback
            }
        }
    }

    /// The term as a condition: a boolean expression with two values.
    func condition(_ term: QueryTerm) throws -> QueryExpression {
        switch term {
        case .constant(let value):
            guard let value = value as? Bool else {
                throw StashError(.unsupportedQuery, "a predicate must be a Bool", entity: entity.name)
            }
            return value ? .true : .false
        case .row, .relatedObject, .relatedObjects:
            throw StashError(.unsupportedQuery, "a predicate must be a Bool, not an object", entity: entity.name)
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
        case .row, .relatedObjects:
            throw StashError(
                .unsupportedQuery, "a predicate cannot use an object or a to-many relationship as a value",
                entity: entity.name)
        case .relatedObject(_, let foreignKey): return foreignKey
        case .expression(let expression, _, _): return expression
        }
    }

    /// A Swift value as the store keeps it: as an attribute of its type would be stored.
    func storedValue(_ value: Any?) throws -> StoredValue {
        // The common types first: a cast to a concrete type is cheaper than to a protocol.
        if let integer = value as? Int { return .integer(Int64(integer)) }
        if let text = value as? String { return .text(text) }
        guard let value = unwrapped(value) else { return .null }
        if let object = value as? ManagedObject {
            // A related object compares as its row.
            let object = object.resolved
            guard let rowID = object.rowID, object.state != .inserted else {
                throw StashError(
                    .unsupportedQuery, "the \(object.entity.name) a predicate names is not saved yet: save it first",
                    entity: entity.name)
            }
            return .integer(rowID)
        }
        if let date = value as? Date {
            // A date the store keeps exactly; any other would be rounded, and so compare
            // unlike Swift (a comparison with an attribute moves the bound instead).
            guard case .compare(_, let stored) = Self.storedDate(date, for: .equal) else {
                throw StashError(
                    .unsupportedQuery,
                    "the date \(date.timeIntervalSince1970) (seconds since 1970) is used as a value, but it is not a "
                        + "whole millisecond from year 1 to 9999, as stored dates are: round it, or compare it with an "
                        + "attribute directly",
                    entity: entity.name)
            }
            return stored
        }
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
    /// A value Swift knows already (the subexpression reads no input), never an `Optional`:
    /// `nil` is `nil`.
    case constant(Any?)
    /// A row: the predicate's object (scope 0), or a related row a closure names
    /// (`$0.books.contains { $0.… }`); only a key path may start from it.
    case row(EntityDescription, scope: Int)
    /// An expression the store evaluates; `optional` when it can be NULL.
    case expression(QueryExpression, kind: QueryKind, optional: Bool)
    /// The object a to-one relationship of the current row names: it compares as its key
    /// column (`== nil`, `== writer`); `?.` reads its values through a subquery.
    case relatedObject(RelationshipDescription, foreignKey: QueryExpression)
    /// The objects a to-many relationship of the current row names: `count`, `isEmpty`,
    /// `contains(where:)`, `allSatisfy`.
    case relatedObjects(RelationshipDescription)

    /// A Bool that does not depend on the object, from a part that reads it (see
    /// `PredicateTranslator.derived`).
    static func derived(_ value: Bool) -> QueryTerm {
        .expression(value ? .true : .false, kind: .bool, optional: false)
    }

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
        case .constant(let value): value == nil
        case .row, .relatedObjects: false
        case .relatedObject: true
        case .expression(_, _, let optional): optional
        }
    }
}

/// One translation per expression type.
protocol PredicateTranslatable: PredicateExpression, SendableMetatype {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm
}

/// The value inside any number of `Optional`s, `nil` if there is none.
func unwrapped(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any OptionalValue { return unwrapped(optional.wrappedValue) }
    return value
}

/// `unwrapped` for a value of a known type: most constants are not optional, and a check
/// of the type says so without a cast.
func unwrappedConstant<Value>(_ value: Value) -> Any? {
    guard _isOptional(Value.self) || Value.self == Any.self else { return value }
    return unwrapped(value)
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
