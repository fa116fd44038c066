/// A model with indexes over several attributes, for queries that filter on the first and
/// filter or sort on the next ones. One-attribute indexes are `@Attribute(.indexed)`.
///
/// ```swift
/// final class Article: ManagedObject, Decodable, IndexedModel {
///     @Attribute(.unique) var id: Int
///     @Attribute var feedID: Int
///     @Attribute var publishedAt: Date
///
///     // Articles of one feed, newest first.
///     static var indexes: [[PartialKeyPath<Article>]] { [[\.feedID, \.publishedAt]] }
/// }
/// ```
///
/// The store keeps each as `<Entity>_<attribute>_<attribute>_index`; migration creates the
/// indexes a model gains and drops the ones it loses.
public protocol IndexedModel: ManagedObject {
    /// Each index's attributes, in index order: two or more stored attributes.
    static var indexes: [[PartialKeyPath<Self>]] { get }
}
