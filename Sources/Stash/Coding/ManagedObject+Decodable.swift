/// The default decoding of a `Decodable` managed object: the recipe with no
/// `init(from:)` to write.
///
/// ```swift
/// final class Post: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Attribute var title: String
/// }
/// ```
///
/// Each attribute is decoded from the key of its name (the decoder's key strategy applies).
/// If the unique value names an object the context already has, that object is updated and
/// returned, so a payload never makes two objects for one unique value; otherwise a new
/// object is inserted. An object whose decoding fails is left as it was (a new one is not
/// inserted). A hand-written `init(from:)` replaces all of this.
extension Decodable where Self: ManagedObject {
    public init(from decoder: any Decoder) throws {
        let context = try ManagedObjectContext.carried(by: decoder, decoding: Self.self)
        let object = try context.decoding.decodeObject(of: Self.self, from: decoder)
        // Unchecked cast: the object comes from Self's own entity state, so it is a Self.
        self = unsafeDowncast(object, to: Self.self)
    }
}
