import Foundation

/// The settings of a `JSONDecoder` that the reader honours, or `nil` (the decode steps
/// aside to JSONDecoder) for one it does not: a custom key strategy, non-conforming floats read from strings, JSON5, a top-level dictionary assumed.
struct ReaderOptions: Sendable {
    enum DateStrategy: Sendable {
        case deferredToDate, secondsSince1970, millisecondsSince1970, iso8601
        case custom(@Sendable (any Decoder) throws -> Date)
    }
    enum DataStrategy: Sendable {
        case deferredToData, base64
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    var convertsFromSnakeCase: Bool
    var date: DateStrategy
    var data: DataStrategy

    /// Whether the same bytes always decode to the same values: not under a custom date or
    /// data strategy, whose closure may read the coding path, the clock or state of its own
    /// (a nested object's copies are then decoded each time: `NestedObjectMemo`).
    var decodesBytesAlike: Bool {
        if case .custom = date { return false }
        if case .custom = data { return false }
        return true
    }

    init?(_ decoder: JSONDecoder) {
        guard !decoder.allowsJSON5, !decoder.assumesTopLevelDictionary else { return nil }
        switch decoder.keyDecodingStrategy {
        case .useDefaultKeys: convertsFromSnakeCase = false
        case .convertFromSnakeCase: convertsFromSnakeCase = true
        default: return nil
        }
        switch decoder.dateDecodingStrategy {
        case .deferredToDate: date = .deferredToDate
        case .secondsSince1970: date = .secondsSince1970
        case .millisecondsSince1970: date = .millisecondsSince1970
        case .iso8601: date = .iso8601
        case .custom(let closure): date = .custom(closure)
        }
        switch decoder.dataDecodingStrategy {
        case .deferredToData: data = .deferredToData
        case .base64: data = .base64
        case .custom(let closure): data = .custom(closure)
        }
        guard case .throw = decoder.nonConformingFloatDecodingStrategy else { return nil }
    }
}
