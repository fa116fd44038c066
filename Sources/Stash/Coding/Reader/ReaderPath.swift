/// A coding path as a list linked to its parent, so that entering a value costs no array
/// copy; made into `[CodingKey]` only when asked (an error, a `codingPath` read).
final class ReaderPath: Sendable {
    let parent: ReaderPath?
    let key: ReaderPathKey?

    static let root = ReaderPath(parent: nil, key: nil)

    init(parent: ReaderPath?, key: ReaderPathKey?) {
        self.parent = parent
        self.key = key
    }

    func appending(_ key: any CodingKey) -> ReaderPath {
        ReaderPath(parent: self, key: .key(AnyReaderKey(key)))
    }

    func appending(index: Int) -> ReaderPath {
        ReaderPath(parent: self, key: .index(index))
    }

    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: ReaderPath? = self
        while let current = node, let key = current.key {
            switch key {
            case .key(let key): keys.append(key.key)
            case .index(let index): keys.append(IndexKey(intValue: index))
            }
            node = current.parent
        }
        return keys.reversed()
    }
}
