/// A dictionary keyed by strings, which JSONDecoder reads without the key strategy.
protocol ReaderStringKeyedDictionary {
    static func read(at index: Int, _ place: ReaderPlace, with decoder: TapeDecoder) throws -> Self
}

extension Dictionary: ReaderStringKeyedDictionary where Key == String, Value: Decodable {
    static func read(at index: Int, _ place: ReaderPlace, with decoder: TapeDecoder) throws -> Self {
        let document = decoder.document
        let node = document.node(index)
        guard node.kind == .object else {
            // JSONDecoder reads such a dictionary itself only under a key strategy; without
            // one, through `Dictionary.init(from:)`, whose keyed container words it otherwise.
            if node.kind == .null, !document.options.convertsFromSnakeCase {
                throw DecodingError.valueNotFound(
                    [String: Any].self,
                    .init(
                        codingPath: place.keys,
                        debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            try document.checkNotNull([String: Any].self, at: index, place)
            throw document.typeMismatch([String: Any].self, at: index, place)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(node.start)
        let path = place.node
        // Without a key strategy JSONDecoder goes through `Dictionary.init(from:)`: its keyed
        // container reads every key first, a second equal key's value is never decoded, and a
        // key that is a number is one in the coding path (`scores[7]`). Under a strategy it
        // reads member by member, every value, with text keys.
        let asDictionaryDecodes = !document.options.convertsFromSnakeCase
        if asDictionaryDecodes, node.flags & JSONTape.Node.plainKeys == 0 {
            var member = index + 1
            while member < node.end {
                _ = try document.text(of: document.node(member))
                member = document.next(after: member + 1)
            }
        }
        var member = index + 1
        while member < node.end {
            let key = try document.text(of: document.node(member))
            defer { member = document.next(after: member + 1) }
            if asDictionaryDecodes, result[key] != nil { continue }
            let codingKey: any CodingKey = asDictionaryDecodes ? DictionaryKey(key) : StringKey(key)
            let value = try decoder.value(Value.self, at: member + 1, ReaderPlace(path, .key(AnyReaderKey(codingKey))))
            if result[key] == nil { result[key] = value }
        }
        return result
    }
}

/// A dictionary's key as `Dictionary.init(from:)` makes it: a number's text is also that
/// number, so a coding path shows it as an index.
struct DictionaryKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ string: String) {
        stringValue = string
        intValue = Int(string)
    }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(String(intValue)) }
}
