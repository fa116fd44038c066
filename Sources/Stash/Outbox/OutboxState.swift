/// What waits in the outbox, for an app's status line ("3 changes waiting").
public struct OutboxState: Sendable, Equatable, CustomStringConvertible {
    /// Changes not acknowledged by the server yet (each object's merged edits count once).
    public let waiting: Int
    /// Among them, changes the server refused (a 4xx, such as a 422 for a bad value), which
    /// the next push sends again.
    public let refused: Int

    public init(waiting: Int, refused: Int) {
        self.waiting = waiting
        self.refused = refused
    }

    public var description: String {
        let changes = waiting == 1 ? "1 change waiting" : "\(waiting) changes waiting"
        return refused == 0 ? changes : changes + " (\(refused) refused)"
    }
}

/// The continuations of `PersistentContainer.outboxStates()`, by a key of their own.
struct OutboxListeners: Sendable {
    var next = 0
    var continuations: [Int: @Sendable () -> Void] = [:]
}
