/// The container a relationship's decoding made to learn that a related object's JSON is an
/// object, handed to the `decodeObject` that decodes that object, so that JSONDecoder does not
/// read the object's keys a second time (4.4k instructions a nested author, stash-bench's
/// graph import under callgrind).
///
/// Taken by the first decode of an object of `type` while it is handed over, which is that
/// object's: Stash's `init(from:)` decodes nothing before it, and a hand-written one never
/// reaches `decodeObject` for its own class. No coding paths are compared: reading them
/// cost more than the container (5.7k instructions).
struct HandedOverContainer {
    let type: ObjectIdentifier
    let container: KeyedDecodingContainer<AttributeKey>
}
