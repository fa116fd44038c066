/// A model whose objects are unique by several attributes together: a feed entry by its
/// feed and its `guid`, which another feed may use too.
///
/// ```swift
/// final class Entry: ManagedObject, Decodable, CompositeUniqueModel {
///     @Relationship var feed: Feed?
///     @Attribute var guid: String
///     @Attribute var title: String
///
///     static var uniqueConstraints: [[PartialKeyPath<Entry>]] { [[\.feed, \.guid]] }
/// }
/// ```
///
/// Each constraint names two or more attributes or to-one relationships. The store keeps
/// it as a unique index, `<Entity>_<attribute>_<attribute>_unique`, made by migration
/// (which fails, naming it, when stored rows already break it). Decoding an object whose
/// values together match an object of the context or a stored row updates that object, as
/// a `.unique` attribute does (a related object's key counts once it is decoded), and so
/// does saving a new object made in code; the merge policy decides whose values win. A
/// `nil` among the values matches nothing, as SQL's NULLs never collide.
public protocol CompositeUniqueModel: ManagedObject {
    /// Each constraint's attributes and to-one relationships, in index order.
    static var uniqueConstraints: [[PartialKeyPath<Self>]] { get }
}

func declaredUniqueConstraints<Model: CompositeUniqueModel>(of type: Model.Type) -> [[AnyKeyPath]] {
    Model.uniqueConstraints.map { $0.map { $0 as AnyKeyPath } }
}
