import Foundation

extension PredicateTranslator {
    /// `left op right`, two values of one type, as Swift compares them:
    /// - equality with an operand that may be `nil` is `IS` (nil equals nil only);
    /// - dates are stored to the millisecond, so a constant with a finer fraction is moved to
    ///   the millisecond that gives the same answer (`d > c` is `d > floor(c)`; `d == c` is
    ///   false unless `c` is a whole millisecond);
    /// - decimals compare by value (`STASH_DECIMAL`), text by code point;
    /// - enums and JSON values compare for equality only (Swift orders enums by declaration,
    ///   not by raw value).
    func compare(_ left: QueryTerm, _ op: QueryComparison, _ right: QueryTerm, in expression: some PredicateExpression)
        throws -> QueryTerm
    {
        let kind = left.kind ?? right.kind ?? .other
        var op = op
        var left = left
        var right = right
        // The column (or computed value) on the left, a constant on the right.
        if left.isConstant, !right.isConstant {
            swap(&left, &right)
            op = op.mirrored
        }
        let isEquality = op == .equal || op == .notEqual
        if !isEquality, [.rawEnum, .json, .bool, .blob, .other].contains(kind) {
            throw unsupported(expression, "values of this type compare for equality only")
        }
        var rightExpression: QueryExpression
        if kind == .date, case .constant(let value) = right, let date = value as? Date {
            switch Self.storedDate(date, for: op) {
            case .compare(let movedOp, let stored):
                op = movedOp
                rightExpression = .value(stored)
            case .always(let answer):
                // No stored date lies on the other side (or equals it). Ordering an optional
                // made by a flatMap: NULL is no match.
                guard answer, !isEquality, left.isOptional else { return .derived(answer) }
                let present = QueryExpression.not(.isNull(try self.expression(left)))
                return .expression(present, kind: .bool, optional: false)
            }
        } else {
            rightExpression = try self.expression(right)
        }
        let leftExpression = try self.expression(left)
        let ordering: QueryOrdering = kind == .decimal ? .decimal : .stored
        let result: QueryExpression
        if isEquality, left.isOptional || right.isOptional {
            let same = QueryExpression.identical(leftExpression, rightExpression, ordering)
            result = op == .equal ? same : .not(same)
        } else if left.isOptional || right.isOptional {
            // Only a value made by a flatMap can be NULL here: NULL is no match.
            result = .coalesce(.compare(leftExpression, op, rightExpression, ordering), .false)
        } else {
            result = .compare(leftExpression, op, rightExpression, ordering)
        }
        return .expression(result, kind: .bool, optional: false)
    }

    /// How a date column is compared with a constant for `op`, so that the answer is Swift's
    /// for stored dates, which are whole milliseconds `n` (the `Date` of `n / 1000`) from year
    /// 1 to 9999: the operator and the stored text of the millisecond to compare with, or the
    /// one answer every stored date gives (`==` a time that is no stored millisecond, `<`
    /// a time before year 1).
    static func storedDate(_ date: Date, for op: QueryComparison) -> DateComparison {
        func stored(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        let scaled = date.timeIntervalSince1970 * 1000
        guard !scaled.isNaN else { return .always(op == .notEqual) }
        // Far outside the stored years (infinities too), any nearby millisecond answers alike.
        let nearest = Int64(max(min(scaled.rounded(), 1e17), -1e17))
        // The first stored millisecond at or after the date, and the first after it.
        let atOrAfter = (nearest - 1...nearest + 1).first { stored($0) >= date } ?? nearest + 1
        let after = (nearest - 1...nearest + 1).first { stored($0) > date } ?? nearest + 1
        let (movedOp, bound): (QueryComparison, Int64)
        switch op {
        case .equal, .notEqual:
            guard stored(atOrAfter) == date, StoredDate.range.contains(atOrAfter) else {
                return .always(op == .notEqual)
            }
            (movedOp, bound) = (op, atOrAfter)
        case .greater: (movedOp, bound) = (.greaterOrEqual, after)
        case .greaterOrEqual: (movedOp, bound) = (.greaterOrEqual, atOrAfter)
        case .less: (movedOp, bound) = (.less, atOrAfter)
        case .lessOrEqual: (movedOp, bound) = (.less, after)
        }
        // `d >= bound` or `d < bound`: a bound outside the stored years has one answer.
        if bound < StoredDate.range.lowerBound { return .always(movedOp == .greaterOrEqual) }
        if bound > StoredDate.range.upperBound { return .always(movedOp == .less) }
        guard let text = try? StoredDate.string(from: stored(bound)) else { return .always(false) }
        return .compare(movedOp, .text(text))
    }

    /// How stored dates compare with a constant (see `storedDate`).
    enum DateComparison {
        case compare(QueryComparison, StoredValue)
        case always(Bool)
    }
}

extension QueryComparison {
    /// The operator with its operands swapped: `a < b` is `b > a`.
    var mirrored: QueryComparison {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}
