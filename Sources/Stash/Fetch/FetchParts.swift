import Foundation

/// What a fetch reads of its `FetchDescriptor`, read where the descriptor's model type is
/// known: `fetch` is inlined into its caller, which makes this for its own `T`. Code made for
/// any `T` looks up the generic metadata of `FetchDescriptor<T>`, `Predicate<T>`, its
/// optional and `[SortDescriptor<T>]` to read their fields: 2.5k instructions of a look-up
/// (stash-bench under callgrind), where these are plain values. What is left in the caller,
/// the predicate copied once, is about 1.3k.
@usableFromInline
struct FetchParts {
    /// The predicate's expression and the variable that stands for each object in it.
    @usableFromInline let predicate: (any StandardPredicateExpression<Bool>)?
    @usableFromInline let input: PredicateExpressions.VariableID?
    @usableFromInline let isSorted: Bool
    @usableFromInline let isPrefetching: Bool
    @usableFromInline let limit: Int?
    @usableFromInline let offset: Int?

    /// Borrowed, and the predicate read once: a descriptor taken as owned was copied whole
    /// (2.2k instructions a look-up), and reading `predicate?.expression` and
    /// `predicate?.variable` apart copied the predicate twice (0.7k more than once).
    @inlinable
    init<T>(_ descriptor: borrowing FetchDescriptor<T>) {
        if let predicate = descriptor.predicate {
            self.predicate = predicate.expression
            input = predicate.variable.key
        } else {
            predicate = nil
            input = nil
        }
        isSorted = !descriptor.sortBy.isEmpty
        isPrefetching = !descriptor.prefetching.isEmpty
        limit = descriptor.fetchLimit
        offset = descriptor.fetchOffset
    }
}
