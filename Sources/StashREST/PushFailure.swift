import Foundation
import Stash

/// An operation that did not go through, still in the outbox.
public struct PushFailure: Sendable, CustomStringConvertible {
    public let objectID: ObjectID
    public let method: String
    /// The server's status, `nil` when no answer came.
    public let status: Int?
    /// The server's message, or the transport's error.
    public let message: String

    public var description: String {
        "\(method) \(objectID): " + (status.map { "HTTP \($0) " } ?? "") + message
    }
}
