import Foundation

/// JSON keys as `.convertFromSnakeCase` turns them (`author_id` is `authorId`), worked out
/// by JSONDecoder itself once per distinct key, so the reader's keys are exactly its own.
/// A key without an underscore is left as it is and never asked here.
enum SnakeCaseKeys {
    private static let cache = Locked([String: String]())

    static func converted(_ key: String) -> String {
        if let known = cache.withLock({ $0[key] }) { return known }
        let converted = convertedByFoundation(key)
        cache.withLock { cache in
            // Bounded: a payload of endless distinct keys pays the conversion each time.
            if cache.count < 10_000 { cache[key] = converted }
        }
        return converted
    }

    private static func convertedByFoundation(_ key: String) -> String {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let object = JSONSerialization.isValidJSONObject([key: 0]) ? [key: 0] : [:]
        guard let data = try? JSONSerialization.data(withJSONObject: object),
            let keys = try? decoder.decode(KeyCollector.self, from: data), let converted = keys.keys.first
        else { return key }
        return converted
    }

    private struct KeyCollector: Decodable {
        let keys: [String]
        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: StringKey.self).allKeys.map(\.stringValue)
        }
    }
}
