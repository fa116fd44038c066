/// Weak references to the objects a test expects to be freed once it lets go of them.
final class FreedWatch {
    private var watched: [(name: String, object: () -> AnyObject?)] = []

    func watch(_ object: AnyObject, as name: String) {
        weak let weakObject = object
        watched.append((name, { weakObject }))
    }

    /// The names of the watched objects still alive.
    var survivors: [String] { watched.filter { $0.object() != nil }.map(\.name) }
}
