import Foundation

// One translation per expression type that `#Predicate` makes. A node whose children are
// all constants is folded by evaluating it; see `PredicateTranslator`.

// MARK: Leaves

extension PredicateExpressions.Variable: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        guard let term = translator.binding(of: key) else {
            throw translator.unsupported(self, "a variable from outside the predicate")
        }
        return term
    }
}

extension PredicateExpressions.Value: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        .constant(unwrappedConstant(value))
    }
}

extension PredicateExpressions.NilLiteral: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        .constant(nil)
    }
}

extension PredicateExpressions.KeyPath: PredicateTranslatable {
    /// `$0.title` is the column of the attribute the key path names; `$0.writer` the object a
    /// to-one relationship names; `$0.books` the objects of a to-many one. `count` and
    /// `isEmpty` of text count Characters as Swift does, of an array (JSON text) its
    /// elements, of a to-many relationship its objects.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let base = try translator.translate(root)
        switch base {
        case .constant:
            return try translator.fold(self)
        case .row(let entity, let scope):
            guard scope == translator.scope else {
                throw translator.unsupported(
                    self, "a closure over related objects can only read those objects, not the ones outside it")
            }
            switch try entity.member(for: keyPath) {
            case .attribute(let attribute):
                if let relationship = entity.relationship(atSlot: attribute.index) {
                    return .relatedObject(relationship, foreignKey: .column(attribute.index))
                }
                return .expression(
                    .column(attribute.index), kind: attribute.codec.queryKind, optional: attribute.isOptional)
            case .toMany(let relationship):
                return .relatedObjects(relationship)
            }
        case .relatedObjects(let relationship):
            let related = try translator.relatedRows(of: relationship, in: self)
            switch self.kind {
            case .collectionCount?:
                return .expression(.related(related(.count)), kind: .integer, optional: false)
            case .collectionIsEmpty?:
                return .expression(.not(.related(related(.exists(nil)))), kind: .bool, optional: false)
            default:
                throw translator.unsupported(self, "of a to-many relationship, a query reads count and isEmpty only")
            }
        case .relatedObject:
            throw translator.unsupported(self, "read a related object's values with `?.`")
        case .expression(let expression, let kind, let optional):
            let count: QueryExpression
            switch kind {
            case .text: count = .function(.characterCount, [expression])
            case .json: count = .function(.arrayCount, [expression])
            default: throw translator.unsupported(self, "a key path on a value of this type")
            }
            switch self.kind {
            case .collectionCount?:
                return .expression(count, kind: .integer, optional: optional)
            case .collectionIsEmpty?:
                let empty: QueryExpression =
                    kind == .text
                    ? .compare(expression, .equal, .value(.text("")), .stored)
                    : .compare(count, .equal, .value(.integer(0)), .stored)
                return .expression(empty, kind: .bool, optional: optional)
            default:
                throw translator.unsupported(self, "a key path into a value (only count and isEmpty)")
            }
        }
    }
}

extension PredicateTranslator {
    /// How the rows of a to-many relationship are reached from the current row: by the
    /// inverse to-one column of the related entity.
    func relatedRows(of relationship: RelationshipDescription, in expression: some PredicateExpression) throws
        -> (RelatedQuery.Result) -> RelatedQuery
    {
        let target = relationship.target.schema
        if let join = try relationship.joinTable() {
            let link = RelatedQuery.Link.joined(
                table: join.schema.name, ownColumn: join.schema.columns[join.ownColumn].name,
                relatedColumn: join.schema.columns[join.relatedColumn].name)
            return { RelatedQuery(target: target, link: link, result: $0) }
        }
        guard let inverse = try relationship.inverse(), let column = inverse.slot else {
            throw unsupported(expression, "\(relationship.name) has no inverse to-one relationship to query through")
        }
        return { RelatedQuery(target: target, link: .toMany(inverseColumn: column), result: $0) }
    }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if left.isConstant, right.isConstant { return try translator.fold(self) }
        return try translator.compare(left, .equal, right, in: self)
    }
}

extension PredicateExpressions.NotEqual: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if left.isConstant, right.isConstant { return try translator.fold(self) }
        return try translator.compare(left, .notEqual, right, in: self)
    }
}

extension PredicateExpressions.Comparison: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if left.isConstant, right.isConstant { return try translator.fold(self) }
        let comparison: QueryComparison =
            switch op {
            case .lessThan: .less
            case .lessThanOrEqual: .lessOrEqual
            case .greaterThan: .greater
            case .greaterThanOrEqual: .greaterOrEqual
            @unknown default: throw translator.unsupported(self, "an unknown comparison")
            }
        return try translator.compare(left, comparison, right, in: self)
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        switch (left, right) {
        case (.constant, .constant): return try translator.fold(self)
        case (.constant(let value), _): return (value as? Bool) == true ? right : .derived(false)
        case (_, .constant(let value)): return (value as? Bool) == true ? left : .derived(false)
        default:
            let both = QueryExpression.and([try translator.condition(left), try translator.condition(right)])
            return .expression(both, kind: .bool, optional: false)
        }
    }
}

extension PredicateExpressions.Disjunction: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        switch (left, right) {
        case (.constant, .constant): return try translator.fold(self)
        case (.constant(let value), _): return (value as? Bool) == true ? .derived(true) : right
        case (_, .constant(let value)): return (value as? Bool) == true ? .derived(true) : left
        default:
            let either = QueryExpression.or([try translator.condition(left), try translator.condition(right)])
            return .expression(either, kind: .bool, optional: false)
        }
    }
}

extension PredicateExpressions.Negation: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let inner = try translator.translate(wrapped)
        if inner.isConstant { return try translator.fold(self) }
        return .expression(.not(try translator.condition(inner)), kind: .bool, optional: false)
    }
}

extension PredicateExpressions.Conditional: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let test = try translator.translate(self.test)
        let whenTrue = try translator.translate(trueBranch)
        let whenFalse = try translator.translate(falseBranch)
        let kind = whenTrue.kind ?? whenFalse.kind ?? .other
        if case .constant(let value) = test {
            let (chosen, other) = (value as? Bool) == true ? (whenTrue, whenFalse) : (whenFalse, whenTrue)
            return other.isConstant ? chosen : try translator.derived(chosen, kind: kind)
        }
        let expression = QueryExpression.conditional(
            try translator.condition(test), then: try translator.expression(whenTrue),
            otherwise: try translator.expression(whenFalse))
        return .expression(expression, kind: kind, optional: whenTrue.isOptional || whenFalse.isOptional)
    }
}

// MARK: Arithmetic

extension PredicateTranslator {
    /// `left op right` on numbers stored as numbers. Decimals are text in the store, where
    /// arithmetic would lose digits, so they are refused.
    mutating func arithmetic(
        _ left: some PredicateExpression, _ op: QueryArithmetic, _ right: some PredicateExpression,
        in expression: some PredicateExpression
    ) throws -> QueryTerm {
        let left = try translate(left)
        let right = try translate(right)
        if left.isConstant, right.isConstant { return try fold(expression) }
        let kind = left.kind ?? right.kind ?? .other
        guard kind == .integer || kind == .real else {
            throw unsupported(
                expression,
                kind == .float
                    ? "arithmetic on Float would run in the store's double precision, not Float's"
                    : "arithmetic in the store is on integers and Double only")
        }
        let result = QueryExpression.arithmetic(try self.expression(left), op, try self.expression(right))
        return .expression(result, kind: kind, optional: left.isOptional || right.isOptional)
    }
}

extension PredicateExpressions.Arithmetic: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let operation: QueryArithmetic =
            switch op {
            case .add: .add
            case .subtract: .subtract
            case .multiply: .multiply
            @unknown default: throw translator.unsupported(self, "an unknown arithmetic operator")
            }
        return try translator.arithmetic(lhs, operation, rhs, in: self)
    }
}

extension PredicateExpressions.IntDivision: PredicateTranslatable {
    /// Truncates toward zero, as Swift and SQLite both do.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        try translator.arithmetic(lhs, .divide, rhs, in: self)
    }
}

extension PredicateExpressions.IntRemainder: PredicateTranslatable {
    /// Takes the sign of the dividend, as Swift and SQLite both do.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        try translator.arithmetic(lhs, .remainder, rhs, in: self)
    }
}

extension PredicateExpressions.FloatDivision: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        try translator.arithmetic(lhs, .divide, rhs, in: self)
    }
}

extension PredicateExpressions.UnaryMinus: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let inner = try translator.translate(wrapped)
        if inner.isConstant { return try translator.fold(self) }
        guard inner.kind == .integer || inner.kind == .real || inner.kind == .float else {
            throw translator.unsupported(self, "negation in the store is of integers and floating-point numbers only")
        }
        return .expression(.negate(try translator.expression(inner)), kind: inner.kind!, optional: inner.isOptional)
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if left.isConstant, right.isConstant { return try translator.fold(self) }
        let kind = left.kind ?? right.kind ?? .other
        if case .constant(let value) = left { return value == nil ? right : try translator.derived(left, kind: kind) }
        let expression = QueryExpression.coalesce(try translator.expression(left), try translator.expression(right))
        return .expression(expression, kind: kind, optional: right.isOptional)
    }
}

extension PredicateExpressions.OptionalFlatMap: PredicateTranslatable {
    /// `$0.note?.isEmpty`, `$0.note.flatMap { … }`: the transform on the unwrapped value, NULL
    /// where the value is nil.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let base = try translator.translate(wrapped)
        if base.isConstant { return try translator.fold(self) }
        if case .relatedObject(let relationship, let foreignKey) = base {
            return try translateThrough(relationship, foreignKey, &translator)
        }
        guard case .expression(let expression, let kind, _) = base else {
            throw translator.unsupported(self, "optional chaining on the object itself")
        }
        let transformed = try translator.binding(variable.key, to: .expression(expression, kind: kind, optional: false))
        {
            try $0.translate(transform)
        }
        let result = QueryExpression.conditional(
            .isNull(expression), then: .value(.null),
            otherwise: try translator.expression(transformed))
        return .expression(result, kind: PredicateTranslator.kind(of: transformed), optional: true)
    }
}

extension PredicateExpressions.OptionalFlatMap {
    /// `$0.writer?.name`, `$0.writer.flatMap { $0.books.count }`: the transform, translated
    /// for the related row, as a subquery that gives NULL when there is no related object.
    fileprivate func translateThrough(
        _ relationship: RelationshipDescription, _ foreignKey: QueryExpression, _ translator: inout PredicateTranslator
    ) throws -> QueryTerm {
        let target = relationship.target
        let inner = try translator.inScope { translator in
            try translator.binding(variable.key, to: .row(target, scope: translator.scope)) {
                try $0.translate(transform)
            }
        }
        let through = { (value: QueryExpression) in
            QueryExpression.related(
                RelatedQuery(target: target.schema, link: .toOne(foreignKey: foreignKey), result: .value(value)))
        }
        switch inner {
        case .expression(let expression, let kind, _):
            return .expression(through(expression), kind: kind, optional: true)
        case .relatedObject(let next, let nextKey):
            return .relatedObject(next, foreignKey: through(nextKey))
        case .constant:
            let value = try translator.expression(inner)
            return .expression(
                .conditional(.isNull(foreignKey), then: .value(.null), otherwise: value),
                kind: PredicateTranslator.kind(of: inner), optional: true)
        case .row, .relatedObjects:
            throw translator.unsupported(
                self, "a related object's to-many relationship or the object itself as a value")
        }
    }
}

// MARK: Text and sequences

extension PredicateExpressions.SequenceContainsWhere: PredicateTranslatable {
    /// `$0.books.contains { $0.title == "Dune" }`: whether any related row meets the test.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let base = try translator.translate(sequence)
        guard case .relatedObjects(let relationship) = base else {
            if base.isConstant { return try translator.fold(self) }
            throw translator.unsupported(self, "contains(where:) in the store is on a to-many relationship only")
        }
        let related = try translator.relatedRows(of: relationship, in: self)
        let condition = try translator.relatedCondition(relationship, variable.key, test)
        return .expression(.related(related(.exists(condition))), kind: .bool, optional: false)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateTranslatable {
    /// `$0.books.allSatisfy { $0.read }`: whether no related row fails the test.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let base = try translator.translate(sequence)
        guard case .relatedObjects(let relationship) = base else {
            if base.isConstant { return try translator.fold(self) }
            throw translator.unsupported(self, "allSatisfy in the store is on a to-many relationship only")
        }
        let related = try translator.relatedRows(of: relationship, in: self)
        let condition = try translator.relatedCondition(relationship, variable.key, test)
        let failing = QueryExpression.not(.coalesce(condition, .false))
        return .expression(.not(.related(related(.exists(failing)))), kind: .bool, optional: false)
    }
}

extension PredicateTranslator {
    /// A closure's test of a related row, translated one scope in.
    mutating func relatedCondition(
        _ relationship: RelationshipDescription, _ variable: PredicateExpressions.VariableID,
        _ test: some PredicateExpression
    ) throws -> QueryExpression {
        let target = relationship.target
        return try inScope { translator in
            try translator.binding(variable, to: .row(target, scope: translator.scope)) {
                try $0.condition($0.translate(test))
            }
        }
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateTranslatable {
    /// `title.contains("Swift")`: by code points, so `%`, `_` and `\` are just characters.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let haystack = try translator.translate(base)
        let needle = try translator.translate(other)
        if haystack.isConstant, needle.isConstant { return try translator.fold(self) }
        guard haystack.kind ?? needle.kind == .text else {
            throw translator.unsupported(self, "contains(_:) of a collection in the store is on text only")
        }
        let expression = QueryExpression.contains(
            try translator.expression(haystack), try translator.expression(needle))
        return .expression(expression, kind: .bool, optional: false)
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateTranslatable {
    /// `title.starts(with: "How")`: by code points.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let text = try translator.translate(base)
        let prefix = try translator.translate(self.prefix)
        if text.isConstant, prefix.isConstant { return try translator.fold(self) }
        guard text.kind ?? prefix.kind == .text else {
            throw translator.unsupported(self, "starts(with:) in the store is on text only")
        }
        let expression = QueryExpression.hasPrefix(try translator.expression(text), try translator.expression(prefix))
        return .expression(expression, kind: .bool, optional: false)
    }
}

extension PredicateExpressions.SequenceContains: PredicateTranslatable {
    /// `ids.contains($0.id)` for a captured collection of any size, and `$0.tags.contains(tag)`
    /// for an array attribute.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let elements = try translator.translate(sequence)
        let element = try translator.translate(self.element)
        switch (elements, element) {
        case (.constant, .constant):
            return try translator.fold(self)
        case (.constant(let value), .expression(let expression, let kind, let optional)):
            guard let values = value as? any Sequence else {
                throw translator.unsupported(self, "contains(_:) of a value that is not a sequence")
            }
            if [.json, .other].contains(kind) {
                throw translator.unsupported(
                    self, "contains(_:) of a captured collection of values without a column type")
            }
            let stored = try values.compactMap { try translator.storedElement($0, kind: kind) }
            let isIn = QueryExpression.isIn(expression, stored, kind == .decimal ? .decimal : .stored)
            return .expression(optional ? .coalesce(isIn, .false) : isIn, kind: .bool, optional: false)
        case (.expression(let expression, .json, let optional), .constant(let value)):
            let contains = QueryExpression.arrayContains(expression, try translator.storedValue(value))
            return .expression(optional ? .coalesce(contains, .false) : contains, kind: .bool, optional: false)
        default:
            throw translator.unsupported(
                self, "contains(_:) in the store needs a captured collection or an array attribute and a value")
        }
    }
}

extension PredicateTranslator {
    /// An element of a captured collection as the store keeps it; `nil` for a date that no
    /// stored date equals (stored dates are whole milliseconds).
    func storedElement(_ element: Any, kind: QueryKind) throws -> StoredValue? {
        guard kind == .date, let date = unwrapped(element) as? Date else { return try storedValue(element) }
        guard case .compare(_, let stored) = Self.storedDate(date, for: .equal) else { return nil }
        return stored
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateTranslatable {
    /// `(low...high).contains($0.score)`, `range.contains($0.publishedAt)`.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let bounds = try translator.translate(range)
        let value = try translator.translate(element)
        if bounds.isConstant, value.isConstant { return try translator.fold(self) }
        guard case .constant(let constant) = bounds, let range = constant as? any RangeBounds else {
            throw translator.unsupported(self, "contains(_:) of a range needs a captured range")
        }
        var conditions: [QueryExpression] = []
        if let lower = range.lowerLimit {
            conditions.append(
                try translator.condition(translator.compare(value, .greaterOrEqual, .constant(lower), in: self)))
        }
        if let upper = range.upperLimit {
            let op: QueryComparison = range.includesUpperLimit ? .lessOrEqual : .less
            conditions.append(try translator.condition(translator.compare(value, op, .constant(upper), in: self)))
        }
        return .expression(.and(conditions), kind: .bool, optional: false)
    }
}

/// The bounds of the range types a predicate can capture.
protocol RangeBounds {
    var lowerLimit: Any? { get }
    var upperLimit: Any? { get }
    var includesUpperLimit: Bool { get }
}

extension ClosedRange: RangeBounds {
    var lowerLimit: Any? { lowerBound }
    var upperLimit: Any? { upperBound }
    var includesUpperLimit: Bool { true }
}

extension Range: RangeBounds {
    var lowerLimit: Any? { lowerBound }
    var upperLimit: Any? { upperBound }
    var includesUpperLimit: Bool { false }
}

extension PartialRangeFrom: RangeBounds {
    var lowerLimit: Any? { lowerBound }
    var upperLimit: Any? { nil }
    var includesUpperLimit: Bool { false }
}

extension PartialRangeThrough: RangeBounds {
    var lowerLimit: Any? { nil }
    var upperLimit: Any? { upperBound }
    var includesUpperLimit: Bool { true }
}

extension PartialRangeUpTo: RangeBounds {
    var lowerLimit: Any? { nil }
    var upperLimit: Any? { upperBound }
    var includesUpperLimit: Bool { false }
}
