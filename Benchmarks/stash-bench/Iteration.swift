import Foundation

/// One round of every measurement on fresh store files: import, fetch all, re-import.
///
/// Within each pair the side that goes first alternates between iterations, so neither
/// side always runs on a warmer cache. Checks run outside the measured spans; each
/// measured span ends before its values are released, so deallocation is not timed on
/// either side (values are used by a check after the clock stops, which keeps them alive).
struct Iteration {
    let payload: Payload
    let directory: URL
    let order: [Side]
    /// Compares the two store files column for column (slow, so once is enough).
    let compareStores: Bool

    func run(into results: inout Results) throws {
        let baselinePath = directory.appendingPathComponent("baseline.sqlite").path
        let stashPath = directory.appendingPathComponent("stash.sqlite").path
        let database = try Baseline.createStore(at: baselinePath)
        let container = try StashRun.createStore(at: stashPath)
        let expected = payload.count

        for side in order {
            switch side {
            case .baseline:
                let start = Instant()
                let records = try Baseline.decode(payload.data)
                let decoded = Instant()
                try Baseline.write(records, to: database, upsert: false)
                let end = Instant()
                record(&results, .baseline, start, decoded, end, total: .importTotal, .importDecode, .importWrite)
                precondition(records.count == expected, "baseline decoded \(records.count) records")
                try expectRows(expected, in: baselinePath, after: "baseline import")
            case .stash:
                let start = Instant()
                let (context, articles) = try StashRun.decode(payload.data, into: container)
                let decoded = Instant()
                try context.save()
                let end = Instant()
                record(&results, .stash, start, decoded, end, total: .importTotal, .importDecode, .importWrite)
                precondition(articles.count == expected, "Stash decoded \(articles.count) articles")
                precondition(!context.hasChanges, "Stash's context still has changes after save()")
                try expectRows(expected, in: stashPath, after: "Stash import")
                let counted = try StashRun.count(in: container)
                precondition(counted == expected, "Stash's fetchCount says \(counted) after import, not \(expected)")
            }
        }
        if compareStores {
            try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath)
        }

        for side in order {
            switch side {
            case .baseline:
                let start = Instant()
                let records = try Baseline.fetchAll(from: database)
                let checksum = Baseline.touch(records)
                results.add(.fetchAll, .baseline, start.elapsed)
                precondition(checksum == payload.expected, "baseline fetch: \(checksum) != \(payload.expected)")
            case .stash:
                let start = Instant()
                let (context, articles) = try StashRun.fetchAll(from: container)
                let checksum = StashRun.touch(articles)
                results.add(.fetchAll, .stash, start.elapsed)
                precondition(checksum == payload.expected, "Stash fetch: \(checksum) != \(payload.expected)")
                precondition(!context.hasChanges, "fetching left changes in the context")
            }
        }

        for side in order {
            switch side {
            case .baseline:
                let start = Instant()
                let records = try Baseline.decode(payload.data)
                let decoded = Instant()
                try Baseline.write(records, to: database, upsert: true)
                let end = Instant()
                record(&results, .baseline, start, decoded, end, total: .reimportTotal, .reimportDecode, .reimportWrite)
                precondition(records.count == expected, "baseline decoded \(records.count) records")
                try expectRows(expected, in: baselinePath, after: "baseline re-import")
            case .stash:
                let start = Instant()
                let (context, articles) = try StashRun.decode(payload.data, into: container)
                let decoded = Instant()
                try context.save()
                let end = Instant()
                record(&results, .stash, start, decoded, end, total: .reimportTotal, .reimportDecode, .reimportWrite)
                precondition(articles.count == expected, "Stash decoded \(articles.count) articles")
                precondition(!context.hasChanges, "Stash's context still has changes after save()")
                try expectRows(expected, in: stashPath, after: "Stash re-import")
                let counted = try StashRun.count(in: container)
                precondition(counted == expected, "Stash's fetchCount says \(counted) after re-import, not \(expected)")
            }
        }
        if compareStores {
            try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath)
        }
    }

    private func record(
        _ results: inout Results, _ side: Side, _ start: Instant, _ decoded: Instant, _ end: Instant,
        total: Operation, _ decode: Operation, _ write: Operation
    ) {
        results.add(total, side, end.seconds(since: start))
        results.add(decode, side, decoded.seconds(since: start))
        results.add(write, side, end.seconds(since: decoded))
    }

    /// Counts through a separate read-only connection, trusting neither writer.
    private func expectRows(_ expected: Int, in path: String, after step: String) throws {
        let count = try RawDatabase.count(Baseline.table, inFileAt: path)
        precondition(count == expected, "\(step): \(path) has \(count) rows, not \(expected)")
    }
}
