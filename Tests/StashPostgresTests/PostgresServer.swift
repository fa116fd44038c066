import Foundation
import Stash
import TestProcesses

@testable import StashPostgres

/// The PostgreSQL server the tests use (`PostgresCluster`: `STASH_POSTGRES_URL`, or a
/// throwaway cluster the test process starts). Each test gets a database of its own.
enum PostgresServer {
    /// The server's URL (a `postgresql://` URI), or why there is none.
    static var base: Result<URLComponents, PostgresCluster.Unavailable> { PostgresCluster.base }

    static var isAvailable: Bool { PostgresCluster.isAvailable }

    /// Creates a database of its own for a test and answers its URL.
    static func newDatabase(_ name: String = "test") throws -> String {
        var components = try base.get()
        let database = "\(name)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresConnection(components.string!)
        try admin.execute("CREATE DATABASE \(quotedName(database))")
        components.path = "/" + database
        return components.string!
    }

    private static func quotedName(_ name: String) -> String { "\"\(name)\"" }
}
