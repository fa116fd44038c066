import Foundation
import Stash

/// Collects what a container's `changes` delivers, for tests to wait on.
final class ChangeRecorder: Sendable {
    private let received = Locked<[ChangeSet]>([])
    private let task: Task<Void, Never>

    init(_ container: PersistentContainer) {
        let stream = container.changes
        let received = received
        task = Task.detached {
            for await change in stream { received.withLock { $0.append(change) } }
        }
    }

    deinit { task.cancel() }

    var changes: [ChangeSet] { received.withLock { $0 } }

    /// Waits up to `seconds` for the changes to satisfy `condition`; answers them then (or
    /// at the deadline, for the test to show).
    func wait(seconds: Double = 15, until condition: ([ChangeSet]) -> Bool) async -> [ChangeSet] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = changes
            if condition(now) { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return changes
    }
}

/// Waits up to `seconds` for the container's listening connection to listen.
func listening(_ container: PersistentContainer, seconds: Double = 15) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if container.changeNotifications?.isListening == true { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
