/// Why a document could not be read as OPML; the message says what was wrong and where.
public struct OPMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
