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
    /// `$0.title` is the column of the attribute the key path names; `count` and `isEmpty` of
    /// text count Characters as Swift does, of an array (JSON text) its elements.
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        let base = try translator.translate(root)
        switch base {
        case .constant:
            return try translator.fold(self)
        case .input:
            let attribute = try translator.entity.attribute(for: keyPath)
            return .expression(
                .column(attribute.index), kind: attribute.codec.queryKind, optional: attribute.isOptional)
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
                throw translator.unsupported(
                    self,
                    "key paths through relationships or into values are not supported yet (only count and isEmpty)")
            }
        }
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

// MARK: Text and sequences

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
