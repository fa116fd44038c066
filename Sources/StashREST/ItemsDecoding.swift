import Foundation
import Stash

/// Decodes `Value` found at a key path inside an envelope (`{"data": […]}`), or the body
/// itself, with the decoder's own settings and `userInfo`.
struct Enveloped<Value: Decodable>: Decodable {
    let value: Value

    static var pathKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "StashREST.itemsKey")! }

    init(from decoder: any Decoder) throws {
        let path = (decoder.userInfo[Self.pathKey] as? [String]) ?? []
        guard let last = path.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: Key.self)
        for key in path.dropLast() {
            container = try container.nestedContainer(keyedBy: Key.self, forKey: Key(key))
        }
        value = try container.decode(Value.self, forKey: Key(last))
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The byte-level reader takes an envelope of models (a page, or one object) as it takes the
/// models; anything else names no model and goes to JSONDecoder.
extension Enveloped: ReaderDecodable {
    static var readerModelTypes: [ManagedObject.Type] {
        if let model = Value.self as? ManagedObject.Type { return [model] }
        return (Value.self as? any ReaderDecodable.Type)?.readerModelTypes ?? []
    }
}
