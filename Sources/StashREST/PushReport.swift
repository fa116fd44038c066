import Foundation

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
