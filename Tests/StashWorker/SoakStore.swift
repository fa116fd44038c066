import Foundation
import Stash
import StashPostgres

/// Where a soak runs: an SQLite file, or a PostgreSQL database (a `postgresql://` URL).
struct SoakStore: Sendable {
    let location: String

    var isPostgres: Bool { location.hasPrefix("postgres:") || location.hasPrefix("postgresql:") }

    func open() throws -> PersistentContainer {
        if isPostgres {
            return try PersistentContainer(for: SoakRow.self, SoakMark.self, postgres: location, connections: 2)
        }
        return try PersistentContainer(
            for: SoakRow.self, SoakMark.self, storeURL: URL(fileURLWithPath: location), busyTimeout: .seconds(30))
    }
}

/// Listens to a container's `changes` and counts, per writer, the change sets of that
/// writer's saves (they update its `SoakMark`), leaving out `own`'s.
final class SoakHearing: Sendable {
    private let heard = Locked<[Int: Int]>([:])
    private let task: Task<Void, Never>

    init(_ container: PersistentContainer, own: Int?) throws {
        let marks = try ManagedObjectContext(container).fetch(FetchDescriptor<SoakMark>())
        let writers = Dictionary(
            marks.compactMap { mark in mark.objectID.rowID.map { ($0, mark.writer) } }, uniquingKeysWith: { a, _ in a })
        let changes = container.changes
        let heard = heard
        task = Task.detached {
            for await change in changes {
                for id in change.updated.union(change.inserted) where id.entityName == "SoakMark" {
                    guard let rowID = id.rowID, let writer = writers[rowID], writer != own else { continue }
                    heard.withLock { $0[writer, default: 0] += 1 }
                }
            }
        }
    }

    /// The change sets heard of each writer's saves, by writer.
    func stop() -> [Int: Int] {
        task.cancel()
        return heard.withLock { $0 }
    }
}
