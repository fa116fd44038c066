/// A store that keeps the outbox of `RemoteModel` edits beside the models' tables: written by
/// saves in their own transaction (`StoreChangeSet.outbox`), read and updated by a push
/// through these. A store that does not conform (none today) records no edits.
protocol OutboxStore: Store {
    /// Every operation waiting, in order.
    func outboxOperations() throws -> [OutboxOperation]

    /// In one transaction: notes that an operation is being sent, or that the server refused
    /// it, removes acknowledged ones, sets the rows' ETags and gives waiting operations the
    /// server-set keys learnt. Answers `false` when `attempted` was not recorded: an edit
    /// merged into the operation since the push read it (see `OutboxAttempt.merged`).
    /// With `fetchedAt`, the ETags are a fetch's (see `OutboxWrite.fetchedAt`). Also answers
    /// the change tokens around the commit, for the container to count it as its own.
    func updateOutbox(
        attempted: OutboxAttempt?, failed: (Int64, String?)?, acknowledged: [Int64], etags: [OutboxETag],
        keys: [OutboxKey], fetchedAt: OutboxMark?
    ) throws -> (recorded: Bool, tokens: CommitTokens)

    /// The operations acknowledged while fetches are in flight.
    var acknowledgements: OutboxAcknowledgements { get }
}
