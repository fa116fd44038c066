import Foundation

/// How far a push is: operations done (acknowledged, in conflict, or failed) of those it
/// found waiting.
public struct PushProgress: Sendable, Equatable {
    public let done: Int
    public let total: Int
}
