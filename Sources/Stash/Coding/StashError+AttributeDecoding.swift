import Foundation

extension StashError {
    /// An error thrown while decoding `attribute` at `key` of `container`, restated so that
    /// its path ends in that key and its message quotes what the JSON held there.
    ///
    /// JSONDecoder's own errors fall short of that: `.iso8601` reports a bad date at the
    /// object's path, not the key's, and without the text; a number out of range (`1e400`,
    /// `Int64.max + 1`, `1.5` for an `Int`) comes out of the decoder as "The given data was
    /// not valid JSON." with no path at all. A user's own error type from a custom strategy
    /// passes through as it is.
    static func decodingAttribute(
        _ attribute: AttributeDescription, failedWith error: any Error,
        in container: KeyedDecodingContainer<AttributeKey>, at key: AttributeKey
    ) -> any Error {
        let keyPath = container.codingPath + [key]
        switch error {
        case var error as StashError:
            error.attribute = error.attribute ?? attribute.name
            if error.codingPath.isEmpty { error.codingPath = CodingPathText.format(keyPath) }
            return error
        case let decodingError as DecodingError:
            var error = StashError(decoding: decodingError, attribute: attribute.name)
            let place = CodingPathText.format(keyPath)
            if !isWithin(error.codingPath, place) { error.codingPath = place }
            switch decodingError {
            case .typeMismatch(let type, let context):
                if let found = foundText(in: container, at: key), !context.debugDescription.contains(found) {
                    error = error.withMessage("expected \(type), found \(found): \(context.debugDescription)")
                }
            case .dataCorrupted(let context):
                if let found = foundText(in: container, at: key), !context.debugDescription.contains(found) {
                    error = error.withMessage("invalid value \(found): \(context.debugDescription)")
                }
            default:
                break
            }
            return error
        default:
            guard let number = unrepresentableNumber(in: error) else { return error }
            let type =
                attribute.codec.typeName.hasSuffix("?")
                ? String(attribute.codec.typeName.dropLast()) : attribute.codec.typeName
            let why = attribute.codec.queryKind == .integer ? "out of range, or not a whole number" : "out of range"
            return StashError(
                .decodingFailed, "the number \(number) does not fit \(type) (\(why))", attribute: attribute.name,
                codingPath: CodingPathText.format(keyPath))
        }
    }

    /// Whether `path` is `place` or a path inside it (`[0].tags[2]` in `[0].tags`, not `[0].tagsOld`).
    private static func isWithin(_ path: String, _ place: String) -> Bool {
        guard path.hasPrefix(place) else { return false }
        let rest = path.dropFirst(place.count)
        return rest.isEmpty || rest.hasPrefix(".") || rest.hasPrefix("[")
    }

    /// The same error with another message.
    func withMessage(_ message: String) -> StashError {
        var error = StashError(code, message, entity: entity, attribute: attribute, codingPath: codingPath)
        error.sqliteCode = sqliteCode
        error.sql = sql
        return error
    }

    /// The JSON value at `key` as a message quotes it: text in quotes (its first 100
    /// characters), a number or a Boolean as written; `nil` for anything else.
    private static func foundText(in container: KeyedDecodingContainer<AttributeKey>, at key: AttributeKey)
        -> String?
    {
        if let text = try? container.decode(String.self, forKey: key) {
            return text.count > 100 ? "\"\(text.prefix(100))…\"" : "\"\(text)\""
        }
        if let bool = try? container.decode(Bool.self, forKey: key) { return "\(bool)" }
        if let number = try? container.decode(Decimal.self, forKey: key) { return "\(number)" }
        if let number = try? container.decode(Double.self, forKey: key) { return "\(number)" }
        return nil
    }

    /// The text of a number Foundation's JSON parser read but no Swift type of the model's
    /// can hold: its internal `JSONError.numberIsNotRepresentableInSwift(parsed:)`.
    static func unrepresentableNumber(in error: any Error) -> String? {
        if case JSONReaderError.numberIsNotRepresentableInSwift(let parsed) = error { return parsed }
        guard String(reflecting: type(of: error)).hasSuffix("JSONError"),
            let child = Mirror(reflecting: error).children.first,
            child.label == "numberIsNotRepresentableInSwift"
        else { return nil }
        if let text = child.value as? String { return text }
        return Mirror(reflecting: child.value).children.first?.value as? String
    }
}
