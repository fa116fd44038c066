/// One step of a `ReaderPath`: an object's key, or an array's index.
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
