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
        var member = index + 1
        while member < node.end {
            let key = try document.text(of: document.node(member))
            let value = try decoder.value(
                Value.self, at: member + 1, ReaderPlace(path, .key(AnyReaderKey(StringKey(key)))))
            if result[key] == nil { result[key] = value }
            member = document.next(after: member + 1)
        }
        return result
    }
}
