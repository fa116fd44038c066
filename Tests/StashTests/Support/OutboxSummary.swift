@testable import Stash

extension PersistentContainer {
    /// The outbox's operations as `method|attributes|merged`, one per operation, in order:
    /// what a test compares.
    func outboxSummary() throws -> [String] {
        try outboxOperations().map {
            "\($0.method.rawValue)|\($0.attributes.joined(separator: ","))|\($0.merged)"
        }
    }

    /// Acknowledges every operation waiting, as a push that sent them all would.
    func acknowledgeWholeOutbox() throws {
        try updateOutbox(acknowledged: try outboxOperations().map(\.sequence))
    }
}
