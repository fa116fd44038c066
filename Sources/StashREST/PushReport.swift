import Foundation
import Stash

/// What `RESTClient.push` did: how many operations the server acknowledged, the conflicts
/// and how each was resolved, the operations that did not go through (still in the outbox),
/// and how many requests were sent again.
public struct PushReport: Sendable {
    /// Operations the server acknowledged: each removed from the outbox in the transaction
    /// that wrote its answer into the row.
    public internal(set) var sent = 0
    /// Local edits merged into the operations sent, rather than sent on their own (an edit of
    /// an object whose change was still waiting).
    public internal(set) var coalesced = 0
    /// Operations the server refused as conflicting (412, 409), and what became of them.
    public internal(set) var conflicts: [PushConflict] = []
    /// Operations that did not go through: refused (another 4xx, kept with the server's
    /// message and sent again by the next push) or not answered (5xx, 429 or transport
    /// failures after the retries, kept to be sent again, unchanged, by the next push).
    public internal(set) var failed: [PushFailure] = []
    /// Requests sent again after a 5xx, a 429 or a transport failure.
    public internal(set) var retried = 0
    /// Operations still in the outbox after the push: the failed ones and those of the same
    /// objects that wait behind them.
    public internal(set) var waiting = 0
}

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

/// How far a push is: operations done (acknowledged, in conflict, or failed) of those it
/// found waiting.
public struct PushProgress: Sendable, Equatable {
    public let done: Int
    public let total: Int
}

/// How a conflict ends.
public enum PushResolution: Sendable, Equatable {
    /// The server's version is read back into the row; the local edit is left in
    /// `PushReport.conflicts`.
    case serverWins
    /// The local edit is sent again without `If-Match`, overwriting the server's version.
    case localWins
}

/// How `push` resolves a conflict: `.serverWins` by default.
public enum PushConflictPolicy: Sendable {
    case serverWins
    case localWins
    /// Decides per conflict (its `resolution` says `.serverWins` when asked).
    case custom(@Sendable (PushConflict) -> PushResolution)

    func resolve(_ conflict: PushConflict) -> PushResolution {
        switch self {
        case .serverWins: .serverWins
        case .localWins: .localWins
        case .custom(let decide): decide(conflict)
        }
    }
}

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
