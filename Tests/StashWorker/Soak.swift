import Foundation
import Stash
import TestProcesses

/// Several processes on one store (an SQLite file or a PostgreSQL database): writers saving
/// overlapping rows, readers fetching them; then checks of what is left in the store and of
/// what each process heard. The processes are this executable again (`write` and `read`).
struct Soak {
    let store: SoakStore
    let writers: Int
    let readers: Int
    let rows: Int
    let seconds: Double

    /// What one writer or reader process did, printed as JSON.
    struct Report: Codable {
        var writer: Int?
        var saves = 0
        var fetches = 0
        var rowsRead = 0
        var mixedRowsRead = 0
        /// By writer: how many of its saves the process's `container.changes` delivered.
        var heard: [Int: Int] = [:]

        var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
    }

    /// What the processes did and what the store holds at the end, printed as JSON.
    struct Outcome: Codable {
        var saves = 0
        var savesByWriter: [Int] = []
        var fetches = 0
        var rowsRead = 0
        var mixedRowsRead = 0
        var finalRows = 0
        var mixedFinalRows = 0
        /// Rows sharing an id.
        var duplicateRows = 0
        /// Rows whose values no save of the writer they name wrote.
        var unknownRows = 0
        /// Per writer, the difference between the saves it made and the count its mark holds.
        var lostSaves = 0
        /// Change sets of other processes' saves heard, in all.
        var heard = 0
        /// (process, other writer) pairs where the process heard none of that writer's saves;
        /// only counted where the store notifies (PostgreSQL).
        var deafPairs = 0
        var checksHearing = false

        /// Something the soak must not see.
        var failures: [String] {
            var failures: [String] = []
            if mixedRowsRead + mixedFinalRows > 0 { failures.append("rows mixing two saves") }
            if duplicateRows > 0 { failures.append("duplicate rows") }
            if unknownRows > 0 { failures.append("rows no save wrote") }
            if lostSaves > 0 { failures.append("lost saves") }
            if deafPairs > 0 { failures.append("processes that heard nothing of a writer") }
            return failures
        }

        var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
    }

    func run() throws -> Outcome {
        // Made once here, every row from one save, so no two processes race to create the
        // tables and every row is there at the end.
        let seeding = ManagedObjectContext(try store.open())
        for id in 0..<rows {
            let row = SoakRow(context: seeding)
            row.id = id
            row.writer = 0
            row.seq = 0
            row.check = SoakRow.check(writer: 0, seq: 0)
        }
        for writer in 1...max(writers, 1) {
            let mark = SoakMark(context: seeding)
            mark.writer = writer
            mark.saves = 0
        }
        try seeding.save()
        let deadline = Date().addingTimeInterval(seconds).timeIntervalSince1970
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var processes: [ChildProcess] = []
        for writer in 1...max(writers, 1) {
            processes.append(
                try start(executable, ["write", store.location, "\(writer)", "\(rows)", "\(deadline)"]))
        }
        for _ in 0..<readers {
            processes.append(try start(executable, ["read", store.location, "\(deadline)"]))
        }
        var reports: [Report] = []
        for process in processes {
            let text = String(decoding: process.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw SoakFailure("a soak process (\(process.arguments.first ?? "?")) failed: \(text)")
            }
            guard let report = try? JSONDecoder().decode(Report.self, from: Data(text.utf8)) else {
                throw SoakFailure("a soak process said \(text)")
            }
            reports.append(report)
        }
        return try check(reports)
    }

    /// Sums the reports and checks the store against what the writers say they saved.
    private func check(_ reports: [Report]) throws -> Outcome {
        var outcome = Outcome()
        var savesByWriter: [Int: Int] = [:]
        for report in reports {
            outcome.saves += report.saves
            outcome.fetches += report.fetches
            outcome.rowsRead += report.rowsRead
            outcome.mixedRowsRead += report.mixedRowsRead
            outcome.heard += report.heard.values.reduce(0, +)
            if let writer = report.writer { savesByWriter[writer] = report.saves }
        }
        outcome.savesByWriter = savesByWriter.keys.sorted().map { savesByWriter[$0]! }
        let context = ManagedObjectContext(try store.open())
        let final = try context.fetch(FetchDescriptor<SoakRow>())
        outcome.finalRows = final.count
        outcome.mixedFinalRows = final.count { !$0.isConsistent }
        outcome.duplicateRows = final.count - Set(final.map(\.id)).count
        outcome.unknownRows = final.count { row in
            guard row.writer != 0 || row.seq != 0 else { return false }
            guard let saves = savesByWriter[row.writer], (1...max(saves, 1)).contains(row.seq) else { return true }
            return !SoakRow.ids(writer: row.writer, seq: row.seq, rows: rows).contains(row.id)
        }
        for mark in try context.fetch(FetchDescriptor<SoakMark>()) {
            outcome.lostSaves += abs((savesByWriter[mark.writer] ?? 0) - mark.saves)
        }
        // Every process hears every other writer's saves where the store tells of them.
        outcome.checksHearing = store.isPostgres
        if store.isPostgres {
            for report in reports {
                for writer in savesByWriter.keys where writer != report.writer && report.heard[writer, default: 0] == 0
                {
                    outcome.deafPairs += 1
                }
            }
        }
        return outcome
    }

    private func start(_ executable: URL, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable.path, arguments, standardOutput: .pipe)
    }
}
