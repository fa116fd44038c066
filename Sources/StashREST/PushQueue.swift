import Foundation
import Stash

/// Pushes of one container run one after another in a process: two at once would read the
/// same operations and send each twice (harmless only for a server that keeps idempotency
/// keys). Each push waits for the one before it to end.
enum PushQueue {
    /// Per container, the end of the last push to start: the stream finishes when it ends.
    private static let last = Locked<[ObjectIdentifier: (token: UUID, ended: AsyncStream<Void>)]>([:])

    /// Runs `body` once every push of `container` started before it has ended.
    static func run<Result>(
        for container: PersistentContainer, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let id = ObjectIdentifier(container)
        let token = UUID()
        let (ended, end) = AsyncStream<Void>.makeStream()
        let before = last.withLock { last in
            defer { last[id] = (token, ended) }
            return last[id]?.ended
        }
        defer {
            end.finish()
            last.withLock { last in
                if last[id]?.token == token { last[id] = nil }
            }
        }
        if let before {
            for await _ in before {}
        }
        return try await body()
    }
}
