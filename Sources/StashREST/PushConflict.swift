import Foundation
import Stash

/// A local change the server refused because the object changed there since this device
/// last saw it (412 to `If-Match`, or 409).
public struct PushConflict: Sendable, CustomStringConvertible {
    public let objectID: ObjectID
    /// `POST`, `PATCH` or `DELETE`.
    public let method: String
    public let status: Int
    /// The local edit as sent (JSON), kept here when the server's version wins.
    public let localValues: Data?
    /// What the server said.
    public let serverMessage: String
    /// What the push did: the policy's choice.
    public internal(set) var resolution: PushResolution

    public var description: String {
        "\(method) \(objectID): HTTP \(status) \(serverMessage) (\(resolution))"
    }
}
