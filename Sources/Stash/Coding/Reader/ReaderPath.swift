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

enum ReaderPathKey: Sendable {
    case key(AnyReaderKey)
    case index(Int)
}

/// A coding key kept in a path (`CodingKey` is `Sendable`, the existential box is kept as
/// it came).
struct AnyReaderKey: Sendable {
    let key: any CodingKey
    init(_ key: any CodingKey) { self.key = key }
}

/// An array element's key in a coding path, as JSONDecoder writes it ("Index 3").
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// A dictionary's key in a coding path.
struct StringKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

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
