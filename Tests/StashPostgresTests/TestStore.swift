import Foundation
import Testing

@testable import Stash
@testable import StashPostgres

/// Which store a parametrised test runs on.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A new, empty store of this kind.
    func newStore() throws -> TestStore {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stash-pg-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return TestStore(kind: self, location: directory.appendingPathComponent("store.sqlite").path)
        case .postgres:
            return TestStore(kind: self, location: try PostgresServer.newDatabase())
        }
    }
}

/// One test's store: a file in a directory of its own (removed with it), or a database.
final class TestStore {
    let kind: StoreKind
    /// The file's path, or the database's URL.
    let location: String

    init(kind: StoreKind, location: String) {
        self.kind = kind
        self.location = location
    }

    deinit {
        if kind == .sqlite {
            try? FileManager.default.removeItem(atPath: (location as NSString).deletingLastPathComponent)
        }
    }

    /// A container on the store, as `PersistentContainer(for:storeURL:)` or
    /// `PersistentContainer(for:postgres:)` opens it.
    func open(_ types: ManagedObject.Type..., connections: Int = 4) throws -> PersistentContainer {
        switch kind {
        case .sqlite:
            try PersistentContainer(types: types, storeURL: URL(fileURLWithPath: location), busyTimeout: .seconds(5))
        case .postgres:
            try PersistentContainer(types: types) {
                try PostgresStore(conninfo: location, entities: $0, connections: connections)
            }
        }
    }
}
