import Foundation
import Stash
import TestProcesses

/// Several processes on one store file: writers saving overlapping rows, readers fetching
/// them, then a count of the rows no single save wrote, read by each reader and left in the
/// store at the end. The processes are this executable again (`write` and `read`).
struct Soak {
    let store: URL
    let writers: Int
    let readers: Int
    let rows: Int
    let seconds: Double

    /// What the processes did, printed as JSON; a writer's or reader's own report has the
    /// same keys, those it knows.
    struct Outcome: Codable {
        var saves = 0
        var fetches = 0
        var rowsRead = 0
        var mixedRowsRead = 0
        var finalRows = 0
        var mixedFinalRows = 0

        static func + (first: Outcome, second: Outcome) -> Outcome {
            Outcome(
                saves: first.saves + second.saves, fetches: first.fetches + second.fetches,
                rowsRead: first.rowsRead + second.rowsRead, mixedRowsRead: first.mixedRowsRead + second.mixedRowsRead)
        }

        var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
    }

    func run() throws -> Outcome {
        // Made once here, every row from one save, so no two processes race to create the
        // tables and every row is there at the end.
        let seeding = ManagedObjectContext(try PersistentContainer(for: SoakRow.self, storeURL: store))
        for id in 0..<rows {
            let row = SoakRow(context: seeding)
            row.id = id
            row.writer = 0
            row.seq = 0
            row.check = SoakRow.check(writer: 0, seq: 0)
        }
        try seeding.save()
        let deadline = Date().addingTimeInterval(seconds).timeIntervalSince1970
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var processes: [ChildProcess] = []
        for writer in 1...max(writers, 1) {
            processes.append(
                try start(executable, ["write", store.path, "\(writer)", "\(rows)", "\(deadline)"]))
        }
        for _ in 0..<readers {
            processes.append(try start(executable, ["read", store.path, "\(deadline)"]))
        }
        var outcome = Outcome()
        for process in processes {
            let text = String(decoding: process.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw SoakFailure("a soak process (\(process.arguments.first ?? "?")) failed: \(text)")
            }
            guard let report = try? JSONDecoder().decode(Outcome.self, from: Data(text.utf8)) else {
                throw SoakFailure("a soak process said \(text)")
            }
            outcome = outcome + report
        }
        let final = try ManagedObjectContext(PersistentContainer(for: SoakRow.self, storeURL: store))
            .fetch(FetchDescriptor<SoakRow>())
        outcome.finalRows = final.count
        outcome.mixedFinalRows = final.count { !$0.isConsistent }
        return outcome
    }

    private func start(_ executable: URL, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable.path, arguments, standardOutput: .pipe)
    }
}
