import Foundation

/// What to fetch: the entity, which objects, in what order, how many.
///
/// ```swift
/// var recent = FetchDescriptor<Article>(
///     predicate: #Predicate { !$0.read },
///     sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
/// recent.fetchLimit = 20
/// let page = try context.fetch(recent)
/// ```
///
/// A descriptor is a value: it says what to fetch, and the context decides how.
public struct FetchDescriptor<T: ManagedObject> {
    /// Which objects; `nil` for all of them.
    public var predicate: Predicate<T>?
    /// The order; empty for the order the rows were inserted in.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many objects; `nil` for no limit.
    public var fetchLimit: Int?
    /// Skips this many objects first.
    public var fetchOffset: Int?
    /// Relationships to load with the objects, one query each for all of them, rather than
    /// one per object when each is first read: `[\.author]`, `[\.comments]`.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] {
        get { prefetching.map { $0.keyPath as! PartialKeyPath<T> } }
        set { prefetching = newValue.map(SendableKeyPath.init) }
    }
    @usableFromInline var prefetching: [SendableKeyPath] = []

    /// Inlinable, so that it is made for the caller's `T`: made for any `T`, it looked up
    /// the types of the predicate and of its optional, 1k instructions a look-up's descriptor
    /// (stash-bench under callgrind).
    @inlinable
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension FetchDescriptor: Sendable {}
