import Foundation
import TestProcesses
import Testing

/// Real processes on one PostgreSQL database: `stash-worker soak` (Tests/StashWorker) with
/// four writers and two readers for a few seconds, overlapping unique keys. CI runs the
/// same for a minute.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresSoakTests {
    @Test func fourWritersAndTwoReadersLoseNothingAndHearEachOther() throws {
        let url = try PostgresServer.newDatabase("soak")
        let worker = try ChildProcess.sibling(named: "stash-worker")
        let process = try ChildProcess(worker.path, ["soak", url, "4", "2", "300", "4"], standardOutput: .pipe)
        let output = String(decoding: process.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let outcome = try JSONDecoder().decode(SoakOutcome.self, from: Data(output.utf8))
        #expect(outcome.savesByWriter.count == 4, "\(output)")
        #expect(outcome.savesByWriter.allSatisfy { $0 > 10 }, "\(output)")
        #expect(outcome.fetches > 10, "\(output)")
        #expect(outcome.finalRows == 300, "\(output)")
        #expect(outcome.duplicateRows == 0, "\(output)")
        #expect(outcome.unknownRows == 0, "\(output)")
        #expect(outcome.lostSaves == 0, "\(output)")
        #expect(outcome.mixedRowsRead == 0 && outcome.mixedFinalRows == 0, "\(output)")
        #expect(outcome.checksHearing, "\(output)")
        #expect(outcome.deafPairs == 0, "\(output)")
        #expect(outcome.heard > outcome.saves, "\(output)")
    }

    /// What `stash-worker soak` prints.
    struct SoakOutcome: Decodable {
        let saves: Int
        let savesByWriter: [Int]
        let fetches: Int
        let finalRows: Int
        let mixedRowsRead: Int
        let mixedFinalRows: Int
        let duplicateRows: Int
        let unknownRows: Int
        let lostSaves: Int
        let heard: Int
        let deafPairs: Int
        let checksHearing: Bool
    }
}
