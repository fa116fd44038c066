import Foundation
import TestProcesses
import Testing

extension Trait where Self == BothStoresTrait {
    /// Runs each test of the suite (or the test) on SQLite, then on PostgreSQL when a server
    /// is there (`PostgresCluster`): `testContainer` opens the run's store. A test marked
    /// `.sqliteOnly(…)` runs on SQLite alone.
    static var bothStores: Self { BothStoresTrait() }
}

/// Runs the test body once per store, with `StoreKind.current` set. Every issue the body
/// records (a failed `#expect`, a thrown error) carries the store's name as a comment, so a
/// failure says which run it came from. With no PostgreSQL server the body runs on SQLite;
/// `PostgresAvailabilityTests` says why once, as a disabled test.
struct BothStoresTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let sqliteOnly = test.traits.contains { $0 is SQLiteOnlyTrait }
        if !sqliteOnly, !PostgresDatabases.isAvailable,
            ProcessInfo.processInfo.environment["STASH_REQUIRE_POSTGRES"] == "1"
        {
            // Where a server is promised (CI), its absence is a failure, not a quieter run.
            Issue.record("STASH_REQUIRE_POSTGRES is set, but PostgreSQL is not: \(PostgresCluster.unavailableReason)")
        }
        let kinds: [StoreKind] = sqliteOnly || !PostgresDatabases.isAvailable ? [.sqlite] : [.sqlite, .postgres]
        for kind in kinds {
            let naming: IssueHandlingTrait = .compactMapIssues { issue in
                var issue = issue
                issue.comments.append("on \(kind)")
                return issue
            }
            try await naming.provideScope(for: test, testCase: testCase) {
                do {
                    try await StoreKind.$current.withValue(kind) {
                        guard kind == .postgres else { return try await function() }
                        let run = PostgresRun()
                        defer { run.dropDatabases() }
                        try await PostgresRun.$current.withValue(run) { try await function() }
                    }
                } catch is ExpectationFailedError {
                    // `#require` recorded its issue, named by this scope.
                } catch {
                    // Recorded here, inside the scope that names the store; the other
                    // store still runs.
                    Issue.record(error)
                }
            }
        }
    }
}
