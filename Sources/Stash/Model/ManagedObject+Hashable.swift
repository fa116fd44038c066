/// Objects are equal when they are the same instance: a context has one instance per row, so
/// this is row identity within a context, as with Core Data and SwiftData. It is what makes
/// `#Predicate { $0.author == author }` and `$0.author == nil` compile, and objects usable in
/// sets and as dictionary keys.
extension ManagedObject: Hashable {
    public static func == (left: ManagedObject, right: ManagedObject) -> Bool {
        left === right
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
