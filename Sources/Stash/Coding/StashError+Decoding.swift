extension StashError {
    /// A `DecodingError` restated with the attribute and the coding path spelled out.
    init(decoding error: DecodingError, attribute: String?) {
        let message: String
        let path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context):
            message = "the required key \"\(key.stringValue)\" is missing"
            path = context.codingPath + [key]
        case .typeMismatch(let type, let context):
            message = "expected \(type): \(context.debugDescription)"
            path = context.codingPath
        case .valueNotFound(let type, let context):
            message = "expected \(type) but found null: \(context.debugDescription)"
            path = context.codingPath
        case .dataCorrupted(let context):
            message = "invalid value: \(context.debugDescription)"
            path = context.codingPath
        @unknown default:
            message = "\(error)"
            path = []
        }
        self.init(.decodingFailed, message, attribute: attribute, codingPath: CodingPathText.format(path))
    }
}
