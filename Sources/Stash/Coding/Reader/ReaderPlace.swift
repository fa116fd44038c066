/// Where a value is: its container's path and its own key, joined only when needed (an
/// error, a nested decode), so reading a scalar allocates nothing.
struct ReaderPlace {
    let path: ReaderPath
    let key: ReaderPathKey?

    init(_ path: ReaderPath, _ key: ReaderPathKey? = nil) {
        self.path = path
        self.key = key
    }

    var node: ReaderPath { key.map { ReaderPath(parent: path, key: $0) } ?? path }
    var keys: [any CodingKey] { node.keys }
}
