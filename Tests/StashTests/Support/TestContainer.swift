import Foundation

@testable import Stash
@testable import StashPostgres

/// `PersistentContainer(for:inMemory:)` on the run's store (`StoreKind.current`): on
/// PostgreSQL, a new empty database.
func testContainer(for types: ManagedObject.Type..., inMemory: Bool) throws -> PersistentContainer {
    switch StoreKind.current {
    case .sqlite:
        return try PersistentContainer(types: types, storeURL: nil, busyTimeout: .seconds(5))
    case .postgres:
        return try postgresContainer(types, url: try run().newDatabase())
    }
}

/// `PersistentContainer(for:storeURL:…)` on the run's store: on PostgreSQL, the database
/// standing for `storeURL` in this run (made empty the first time), so reopening the file
/// reopens it. `busyTimeout`, `schemaVersion` and `readOnly` are SQLite's; a test using
/// them is `.sqliteOnly`.
func testContainer(
    for types: ManagedObject.Type..., storeURL: URL, busyTimeout: Duration = .seconds(5), schemaVersion: Int = 0,
    readOnly: Bool = false
) throws -> PersistentContainer {
    switch StoreKind.current {
    case .sqlite:
        return try PersistentContainer(
            types: types, storeURL: storeURL, busyTimeout: busyTimeout, schemaVersion: schemaVersion,
            readOnly: readOnly)
    case .postgres:
        return try postgresContainer(types, url: try run().database(for: storeURL.standardizedFileURL.path))
    }
}

private func run() throws -> PostgresRun {
    guard let run = PostgresRun.current else {
        throw StashError(.storeFailed, "testContainer on PostgreSQL outside a .bothStores run")
    }
    return run
}

private func postgresContainer(_ types: [ManagedObject.Type], url: String) throws -> PersistentContainer {
    try PersistentContainer(types: types) { try PostgresStore(conninfo: url, entities: $0, connections: 4) }
}
