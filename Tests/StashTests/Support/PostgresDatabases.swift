import Foundation
import Stash
import TestProcesses

@testable import StashPostgres

/// The stores of the PostgreSQL runs, on the server `PostgresCluster` names: one database
/// for the test process, and in it a schema per store, which its URL puts first on the
/// `search_path`. A schema is about 4 ms to make; a database per store was about 45 ms
/// (`CREATE DATABASE` with the throwaway cluster's `fsync=off`), minutes in all for the
/// suites that open a container per case.
enum PostgresDatabases {
    static var isAvailable: Bool { PostgresCluster.isAvailable }

    /// The database of this process's schemas, and a connection to it for making and
    /// dropping them.
    private static let shared = Locked<(url: URLComponents, admin: PostgresConnection)?>(nil)

    /// Creates an empty schema and answers its name and the URL of a store in it.
    static func create() throws -> (name: String, url: String) {
        let name = "stash_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        var components = try run("CREATE SCHEMA \"\(name)\"")
        components.percentEncodedQueryItems =
            (components.percentEncodedQueryItems ?? [])
            + [URLQueryItem(name: "options", value: "-csearch_path%3D\(name)")]
        return (name, components.string!)
    }

    /// Drops the schemas and what is in them.
    static func drop(_ names: [String]) {
        guard !names.isEmpty else { return }
        _ = try? run("DROP SCHEMA " + names.map { "\"\($0)\"" }.joined(separator: ", ") + " CASCADE")
    }

    /// Runs `sql` on the shared database (made the first time) and answers its URL.
    private static func run(_ sql: String) throws -> URLComponents {
        try shared.withLock { shared in
            if shared == nil || shared!.admin.isBroken {
                var components = try PostgresCluster.base.get()
                let database = "stash_tests_\(getpid())"
                let server = try PostgresConnection(components.string!)
                let exists = try server.execute("SELECT 1 FROM pg_database WHERE datname = $1", [.text(database)])
                if exists.rowCount == 0 { try server.execute("CREATE DATABASE \"\(database)\"") }
                components.path = "/" + database
                shared = (components, try PostgresConnection(components.string!))
            }
            try shared!.admin.execute(sql)
            return shared!.url
        }
    }
}
