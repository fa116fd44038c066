import Foundation
import Stash

/// One round of every measurement on fresh store files: import, fetch all, re-import.
///
/// Within each pair the side that goes first alternates between iterations, so neither
/// side always runs on a warmer cache. Checks run outside the measured spans; each
/// measured span ends before its values are released, so deallocation is not timed in it on
/// either side (values are used by a check after the clock stops, which keeps them alive).
/// Letting go of what a fetch made is timed as a span of its own (`fetchRelease`), on both
/// sides.
struct Iteration {
    let payload: Payload
    let directory: URL
    let order: [Side]
    /// Compares the two store files column for column (slow, so once is enough).
    let compareStores: Bool
    /// Whether the query workload and the graph run (both on by default).
    var queries = true
    var graph = true
    /// Only the graph import and fetch (`--graph-only`, for profiling them).
    var graphOnly = false
    var authors = GraphPayload.defaultAuthorCount
    var decodePath = StashRun.DecodePath.reader

    func run(into results: inout Results) throws {
        if graphOnly { return try runGraph(&results) }
        let baselinePath = directory.appendingPathComponent("baseline.sqlite").path
        let stashPath = directory.appendingPathComponent("stash.sqlite").path
        let database = try Baseline.createStore(at: baselinePath)
        let container = try StashRun.createStore(at: stashPath)

        for side in order {
            try importPayload(side, upsert: false, database, baselinePath, container, stashPath, &results)
        }
        if compareStores {
            try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath)
        }
        try runSavedImport(&results)

        for side in order {
            switch side {
            case .baseline:
                let start = Instant()
                let (records, checksum) = try span(.fetchAll, .baseline) {
                    let records = try Baseline.fetchAll(from: database)
                    return (records, Baseline.touch(records))
                }
                results.add(.fetchAll, .baseline, start.elapsed)
                precondition(checksum == payload.expected, "baseline fetch: \(checksum) != \(payload.expected)")
                release(.fetchRelease, .baseline, consume records, into: &results)
            case .stash:
                let start = Instant()
                let (context, articles, checksum) = try span(.fetchAll, .stash) {
                    let (context, articles) = try StashRun.fetchAll(from: container)
                    return (context, articles, StashRun.touch(articles))
                }
                results.add(.fetchAll, .stash, start.elapsed)
                precondition(checksum == payload.expected, "Stash fetch: \(checksum) != \(payload.expected)")
                precondition(!context.hasChanges, "fetching left changes in the context")
                release(.fetchRelease, .stash, (consume context, consume articles), into: &results)
            }
        }

        for side in order {
            try importPayload(side, upsert: true, database, baselinePath, container, stashPath, &results)
        }
        if compareStores {
            try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath)
        }
        try runEdit(database, baselinePath, container, stashPath, &results)
        if compareStores {
            try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath)
        }
        if queries { try runQueries(database, container, &results) }
        if graph { try runGraph(&results) }
    }

    /// The import again, into new stores: the baseline's decode and write beside Stash's
    /// `decodeAndSave`, which decodes and writes a batch at a time in one transaction and
    /// hands no objects back.
    private func runSavedImport(_ results: inout Results) throws {
        let baselinePath = directory.appendingPathComponent("saved-baseline.sqlite").path
        let stashPath = directory.appendingPathComponent("saved-stash.sqlite").path
        let database = try Baseline.createStore(at: baselinePath)
        let container = try StashRun.createStore(at: stashPath)
        for side in order {
            let start = Instant()
            let imported = try span(.importSaved, side) {
                switch side {
                case .baseline:
                    let records = try Baseline.decode(payload.data)
                    try Baseline.write(records, to: database, upsert: false)
                    return records.count
                case .stash:
                    return try StashRun.decodeAndSave(payload.data, into: container)
                }
            }
            results.add(.importSaved, side, start.elapsed)
            precondition(imported == payload.count, "\(side) imported \(imported) of \(payload.count) records")
        }
        try expectRows(payload.count, in: baselinePath, after: "baseline import")
        try expectRows(payload.count, in: stashPath, after: "Stash decodeAndSave")
        if compareStores { try StoreComparison.assertSame(table: Baseline.table, baselinePath, stashPath) }
    }

    /// The nested-author import and the fetch that reads each essay's author, on stores of
    /// their own; both sides must read back what was generated. The import runs twice, into
    /// stores of their own: through the recipe, then through `context.decode` (Stash's reader),
    /// the hand-written import run again beside it.
    private func runGraph(_ results: inout Results) throws {
        let graph = GraphPayload.generate(count: payload.count, authors: authors)
        let (database, container) = try importGraph(
            graph, .graphImport, named: "graph", &results, GraphRun.importPayload)
        _ = try importGraph(graph, .graphImportDecode, named: "graph-decode", &results, GraphRun.decodePayload)
        // The same read twice: each author loaded as its first essay reads it, then every
        // author named loaded with the essays (`relationshipKeyPathsForPrefetching`), as the
        // baseline's JOIN reads them. A new context each time, so neither finds the other's.
        for (operation, prefetching) in [(Operation.graphFetch, false), (.graphFetchPrefetched, true)] {
            for side in order {
                let start = Instant()
                let checksum = try span(operation, side) {
                    side == .stash
                        ? try GraphRun.fetchAll(from: container, prefetchingAuthors: prefetching)
                        : try GraphBaseline.fetchAll(from: database)
                }
                results.add(operation, side, start.elapsed)
                precondition(checksum == graph.checksum, "\(operation.label) read \(checksum), not \(graph.checksum)")
            }
        }
    }

    /// Imports `graph` on both sides as `operation` into new stores named after `name`, and
    /// answers them.
    private func importGraph(
        _ graph: GraphPayload, _ operation: Operation, named name: String, _ results: inout Results,
        _ stashImport: (Data, PersistentContainer) throws -> Int
    ) throws -> (RawDatabase, PersistentContainer) {
        let database = try GraphBaseline.createStore(
            at: directory.appendingPathComponent("\(name)-baseline.sqlite").path)
        let container = try GraphRun.createStore(at: directory.appendingPathComponent("\(name)-stash.sqlite").path)
        for side in order {
            let start = Instant()
            let imported = try span(operation, side) {
                side == .stash
                    ? try stashImport(graph.data, container)
                    : try GraphBaseline.importPayload(graph.data, into: database)
            }
            results.add(operation, side, start.elapsed)
            precondition(imported == graph.count, "\(operation.label) made \(imported) essays")
        }
        return (database, container)
    }

    /// An edit of every stored object, as a screen that counts views writes it: one value
    /// changes, and one is set to what it already is (as a form, or the hand-written
    /// `init(from:)`, sets every field). The fetch is not timed; the edit and the save are.
    private func runEdit(
        _ database: RawDatabase, _ baselinePath: String, _ container: PersistentContainer, _ stashPath: String,
        _ results: inout Results
    ) throws {
        let views = #"SELECT sum("views") FROM "Article""#
        let before = try RawDatabase(path: baselinePath, readOnly: true).integer(views)
        for side in order {
            switch side {
            case .baseline:
                let records = try Baseline.fetchAll(from: database)
                let start = Instant()
                try span(.edit, .baseline) { try Baseline.addView(to: records, in: database) }
                results.add(.edit, .baseline, start.elapsed)
            case .stash:
                let (context, articles) = try StashRun.fetchAll(from: container)
                let start = Instant()
                try span(.edit, .stash) { try StashRun.addView(to: articles, in: context) }
                results.add(.edit, .stash, start.elapsed)
                precondition(!context.hasChanges, "Stash's context still has changes after the edit")
            }
        }
        for path in [baselinePath, stashPath] {
            let after = try RawDatabase(path: path, readOnly: true).integer(views)
            precondition(
                after == before + payload.count,
                "\(path): \(after) views after the edit, not \(before) + \(payload.count)")
        }
    }

    /// The query workload on both stores; each side's answers must be the other's.
    private func runQueries(_ database: RawDatabase, _ container: PersistentContainer, _ results: inout Results)
        throws
    {
        let workload = QueryWorkload(payload: payload)
        var lookUps: [Side: Checksum] = [:]
        var pages: [Side: Checksum] = [:]
        var counts: [Side: [Int]] = [:]
        for side in order {
            var start = Instant()
            lookUps[side] = try span(.lookUps, side) {
                side == .stash ? try workload.stashLookUps(container) : try workload.baselineLookUps(database)
            }
            results.add(.lookUps, side, start.elapsed)
            start = Instant()
            pages[side] = try span(.newestPages, side) {
                side == .stash ? try workload.stashNewestPages(container) : try workload.baselineNewestPages(database)
            }
            results.add(.newestPages, side, start.elapsed)
            start = Instant()
            counts[side] = try span(.filteredCounts, side) {
                side == .stash ? try workload.stashCounts(container) : try workload.baselineCounts(database)
            }
            results.add(.filteredCounts, side, start.elapsed)
        }
        // The same look-ups through the keyed fetch, beside the same baseline again.
        var keyed: [Side: Checksum] = [:]
        for side in order {
            let start = Instant()
            keyed[side] = try span(.keyedLookUps, side) {
                side == .stash ? try workload.stashKeyedLookUps(container) : try workload.baselineLookUps(database)
            }
            results.add(.keyedLookUps, side, start.elapsed)
        }
        precondition(lookUps[.stash] == lookUps[.baseline], "look-ups differ")
        precondition(keyed[.stash] == lookUps[.baseline], "keyed look-ups differ")
        precondition(lookUps[.stash]?.count == QueryWorkload.lookUpCount, "a look-up found nothing")
        precondition(pages[.stash] == pages[.baseline], "newest pages differ")
        precondition(counts[.stash] == counts[.baseline], "counts differ")
    }

    /// Decodes and writes the payload on one side: the first import into empty stores, or
    /// (`upsert`) the re-import over the same rows, which must leave the row count as it was.
    private func importPayload(
        _ side: Side, upsert: Bool, _ database: RawDatabase, _ baselinePath: String,
        _ container: PersistentContainer, _ stashPath: String, _ results: inout Results
    ) throws {
        let expected = payload.count
        let operations: (Operation, Operation, Operation) =
            upsert ? (.reimportTotal, .reimportDecode, .reimportWrite) : (.importTotal, .importDecode, .importWrite)
        let step = upsert ? "re-import" : "import"
        switch side {
        case .baseline:
            let start = Instant()
            let records = try span(operations.1, .baseline) { try Baseline.decode(payload.data) }
            let decoded = Instant()
            try span(operations.2, .baseline) { try Baseline.write(records, to: database, upsert: upsert) }
            let end = Instant()
            record(&results, .baseline, start, decoded, end, total: operations.0, operations.1, operations.2)
            precondition(records.count == expected, "baseline decoded \(records.count) records")
            try expectRows(expected, in: baselinePath, after: "baseline \(step)")
        case .stash:
            let start = Instant()
            let (context, articles) = try span(operations.1, .stash) {
                try StashRun.decode(payload.data, into: container, path: decodePath)
            }
            let decoded = Instant()
            try span(operations.2, .stash) { try context.save() }
            let end = Instant()
            record(&results, .stash, start, decoded, end, total: operations.0, operations.1, operations.2)
            precondition(articles.count == expected, "Stash decoded \(articles.count) articles")
            precondition(!context.hasChanges, "Stash's context still has changes after save()")
            try expectRows(expected, in: stashPath, after: "Stash \(step)")
            let counted = try StashRun.count(in: container)
            precondition(counted == expected, "Stash's fetchCount says \(counted) after \(step), not \(expected)")
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
