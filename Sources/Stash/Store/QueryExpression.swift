/// A condition or a value in a store query, as a value: what a `#Predicate` becomes once
/// translated (`Fetch/PredicateTranslation.swift`), and what a store renders in its own
/// language (`SQLite/QueryRenderer.swift` makes SQL with bound parameters).
///
/// Every boolean expression here has two values, as in Swift: equality with an operand that
/// can be NULL is `identical` (SQL's `IS`), so `note != "a"` includes the rows whose note is nil.
package indirect enum QueryExpression: Sendable, Equatable {
    /// The column at this position in the entity.
    case column(Int)
    /// A constant, bound as a parameter.
    case value(StoredValue)
    case not(QueryExpression)
    case and([QueryExpression])
    case or([QueryExpression])
    /// A comparison of two values that are not NULL, ordered as `ordering` says.
    case compare(QueryExpression, QueryComparison, QueryExpression, QueryOrdering)
    /// Equality where either side may be NULL: NULL is identical to NULL only.
    case identical(QueryExpression, QueryExpression, QueryOrdering)
    case isNull(QueryExpression)
    case arithmetic(QueryExpression, QueryArithmetic, QueryExpression)
    case negate(QueryExpression)
    /// `condition ? then : otherwise`.
    case conditional(QueryExpression, then: QueryExpression, otherwise: QueryExpression)
    /// The first that is not NULL.
    case coalesce(QueryExpression, QueryExpression)
    /// Text: whether the first contains the second (by code points, as the store compares).
    case contains(QueryExpression, QueryExpression)
    case hasPrefix(QueryExpression, QueryExpression)
    case function(QueryFunction, [QueryExpression])
    /// Whether the value is one of these (any number of them), compared as `ordering` says;
    /// a NULL among them matches NULL.
    case isIn(QueryExpression, [StoredValue], QueryOrdering)
    /// Whether the JSON array stored in the column holds the value.
    case arrayContains(QueryExpression, StoredValue)
    /// A value of the related rows of another entity (through a relationship); expressions
    /// inside it name that entity's columns.
    case related(RelatedQuery)

    package static let `true` = QueryExpression.value(.integer(1))
    package static let `false` = QueryExpression.value(.integer(0))

    /// The column at `column` holds `value` as stored: the look-up by one value, whose SELECT
    /// a store may keep made (`EntitySQL.selectWhereEqual`, `Store.fetch(_:whereColumn:…)`).
    package static func columnEquals(_ column: Int, _ value: StoredValue) -> QueryExpression {
        .compare(.column(column), .equal, .value(value), .stored)
    }
}

package enum QueryComparison: String, Sendable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// The comparison that holds where this one does not (NULL where this one is NULL).
    package var negated: QueryComparison {
        switch self {
        case .equal: .notEqual
        case .notEqual: .equal
        case .less: .greaterOrEqual
        case .lessOrEqual: .greater
        case .greater: .lessOrEqual
        case .greaterOrEqual: .less
        }
    }
}

package enum QueryArithmetic: String, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
}

/// How two values are ordered and compared.
package enum QueryOrdering: Sendable, Equatable {
    /// As stored: numbers by value, text by code point (the store's own order).
    case stored
    /// Decimal text by its value, exactly.
    case decimal
    /// `String.StandardComparator.lexical`.
    case lexical
}

/// Functions of a value.
package enum QueryFunction: String, Sendable {
    /// The number of Characters of text, as Swift counts them.
    case characterCount
    /// The number of elements of a JSON array.
    case arrayCount
}

/// What a query asks of the rows a relationship relates the current row to.
package struct RelatedQuery: Sendable, Equatable {
    /// How the related rows are found from the current one.
    package enum Link: Sendable, Equatable {
        /// A to-one relationship: the row whose key the current row's column (this
        /// expression, of the current row) holds.
        case toOne(foreignKey: QueryExpression)
        /// A to-many relationship: the rows whose column at this position (of the related
        /// entity) holds the current row's key.
        case toMany(inverseColumn: Int)
        /// A many-to-many relationship: the rows the join table pairs with the current row
        /// (its column at `ownColumn` holds the current row's key, at `relatedColumn` the
        /// related row's).
        case joined(table: String, ownColumn: String, relatedColumn: String)
    }

    package enum Result: Sendable, Equatable {
        /// The related row's value (NULL when there is none).
        case value(QueryExpression)
        /// Whether any related row meets the condition (any at all without one).
        case exists(QueryExpression?)
        /// How many related rows there are.
        case count
    }

    package let target: EntitySchema
    package let link: Link
    package let result: Result

    /// A to-one relationship's value (`$0.feed?.url`): a store may test it as the related
    /// rows that pass, once, rather than once a row.
    package var isToOneValue: Bool {
        if case .toOne = link, case .value = result { return true }
        return false
    }

    package static func == (left: RelatedQuery, right: RelatedQuery) -> Bool {
        left.target.name == right.target.name && left.link == right.link && left.result == right.result
    }
}

/// One key of a query's order: a column, or a value through to-one relationships
/// (`RelatedQuery` with a `.value` result).
package struct QuerySort: Sendable, Equatable {
    package let key: QueryExpression
    package let descending: Bool
    package let ordering: QueryOrdering

    package init(key: QueryExpression, descending: Bool, ordering: QueryOrdering) {
        self.key = key
        self.descending = descending
        self.ordering = ordering
    }

    package init(column: Int, descending: Bool, ordering: QueryOrdering) {
        self.init(key: .column(column), descending: descending, ordering: ordering)
    }
}
