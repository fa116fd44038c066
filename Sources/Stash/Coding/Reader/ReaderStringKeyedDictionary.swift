/// A dictionary keyed by strings, as JSONDecoder reads it under a key strategy: member by
/// member, every value, its keys left as they are. (Without a key strategy JSONDecoder goes
/// through `Dictionary.init(from:)`, and so does the reader: see `TapeDecoder.value`.)
protocol ReaderStringKeyedDictionary {
    static func read(at index: Int, _ place: ReaderPlace, with decoder: TapeDecoder) throws -> Self
}

extension Dictionary: ReaderStringKeyedDictionary where Key == String, Value: Decodable {
    static func read(at index: Int, _ place: ReaderPlace, with decoder: TapeDecoder) throws -> Self {
        let document = decoder.document
        try document.checkNotNull([String: Any].self, at: index, place)
        let node = document.node(index)
        guard node.kind == .object else { throw document.typeMismatch([String: Any].self, at: index, place) }
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
