import Foundation
import Stash
import TestProcesses
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

    /// Waits for the changes to satisfy `condition` (`eventually`: for looks, not seconds);
    /// answers them then, or after the last look, for the test to show. A passing test waits
    /// milliseconds.
    func wait(until condition: ([ChangeSet]) -> Bool) async -> [ChangeSet] {
        _ = await eventually { condition(changes) }
        return changes
    }
}

/// Waits for the container's listening connection to listen (`eventually`).
func listening(_ container: PersistentContainer) async -> Bool {
    await eventually { container.changeNotifications?.isListening == true }
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
