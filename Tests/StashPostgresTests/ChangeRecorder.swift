import Foundation
import Stash
import Testing

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
    /// at the deadline, for the test to show). Long, since under the whole suite's load on 2
    /// cores a task may wait seconds for a cooperative thread; a passing test waits
    /// milliseconds.
    func wait(seconds: Double = 60, until condition: ([ChangeSet]) -> Bool) async -> [ChangeSet] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = changes
            if condition(now) { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return changes
    }
}

/// Waits up to `seconds` for the container's listening connection to listen (looking once
/// more after the deadline: a sleep may overshoot it under load).
func listening(_ container: PersistentContainer, seconds: Double = 60) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if container.changeNotifications?.isListening == true { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return container.changeNotifications?.isListening == true
}

/// Two containers on one new database, standing for two processes: the first to write, the
/// second listening, its `changes` recorded.
func writerAndRecordedListener() async throws -> (PersistentContainer, PersistentContainer, ChangeRecorder) {
    let url = try PostgresServer.newDatabase()
    let writer = try PersistentContainer(for: Reading.self, postgres: url)
    let other = try PersistentContainer(for: Reading.self, postgres: url)
    let recorder = ChangeRecorder(other)
    #expect(await listening(other))
    return (writer, other, recorder)
}

/// New readings with these ids, in `context`.
func insertReadings(_ ids: some Sequence<Int>, into context: ManagedObjectContext) -> [Reading] {
    ids.map { id in
        let reading = Reading(context: context)
        reading.id = id
        return reading
    }
}
