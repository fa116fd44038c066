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
        if kind == .date, case .constant(let value) = right, let date = unwrapped(value) as? Date {
            guard let (movedOp, stored) = try Self.storedDate(date, for: op) else {
                // `==` with a time that is no stored millisecond: never; `!=`: always.
                return .constant(op == .notEqual)
            }
            op = movedOp
            rightExpression = .value(stored)
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
    /// for stored dates, which are whole milliseconds `n` (the `Date` of `n / 1000`): the
    /// operator and the stored text of the millisecond to compare with. `nil` when `==` or
    /// `!=` can have one answer only (no stored millisecond is that date).
    static func storedDate(_ date: Date, for op: QueryComparison) throws -> (QueryComparison, StoredValue)? {
        func stored(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        let nearest = Int64((date.timeIntervalSince1970 * 1000).rounded())
        // The first stored millisecond at or after the date, and the first after it.
        let atOrAfter = (nearest - 1...nearest + 1).first { stored($0) >= date } ?? nearest + 1
        let after = (nearest - 1...nearest + 1).first { stored($0) > date } ?? nearest + 1
        func text(_ milliseconds: Int64) throws -> StoredValue {
            .text(try StoredDate.string(from: stored(milliseconds)))
        }
        switch op {
        case .equal, .notEqual:
            guard stored(atOrAfter) == date else { return nil }
            return (op, try text(atOrAfter))
        case .greater: return (.greaterOrEqual, try text(after))
        case .greaterOrEqual: return (.greaterOrEqual, try text(atOrAfter))
        case .less: return (.less, try text(atOrAfter))
        case .lessOrEqual: return (.less, try text(after))
        }
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
