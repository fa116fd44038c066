import Foundation
import TestProcesses
import Testing

/// Several processes writing one store, as real processes: `stash-worker` (Tests/StashWorker),
/// built beside this test bundle. Writers save overlapping rows, every column of each from
/// one save, through setters in long-lived contexts and by decoding into fresh ones; readers
/// fetch them all the while. No row read, and none left, may mix two saves' columns.
@Suite(.sqliteOnly("stash-worker processes on one SQLite file (PostgresConcurrencyTests has the PostgreSQL soak)"))
struct ManyProcessTests {
    @Test func fourWritersAndTwoReadersNeverMixTwoSavesInARow() throws {
        let directory = try TemporaryDirectory()
        let output = try runWorker(["soak", directory.file().path, "4", "2", "300", "8"])
        let outcome = try JSONDecoder().decode(SoakOutcome.self, from: Data(output.utf8))
        #expect(outcome.saves > 100, "\(output)")
        #expect(outcome.fetches > 10, "\(output)")
        #expect(outcome.finalRows == 300, "\(output)")
        #expect(outcome.mixedRowsRead == 0, "\(output)")
        #expect(outcome.mixedFinalRows == 0, "\(output)")
    }

    /// What `stash-worker soak` prints.
    struct SoakOutcome: Decodable {
        let saves: Int
        let fetches: Int
        let finalRows: Int
        let mixedRowsRead: Int
        let mixedFinalRows: Int
    }

    private func runWorker(_ arguments: [String]) throws -> String {
        let worker = try ChildProcess.sibling(named: "stash-worker")
        let process = try ChildProcess(worker.path, arguments, standardOutput: .pipe)
        let output = String(decoding: process.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output
    }
}
