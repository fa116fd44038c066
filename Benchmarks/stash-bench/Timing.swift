import Foundation
import Synchronization

/// Which implementation a sample belongs to.
enum Side: CaseIterable {
    case baseline, stash
}

/// The rows of the report. The indented ones split an import into its two steps, to show
/// whether a difference comes from decoding or from writing.
enum Operation: CaseIterable {
    case importTotal, importDecode, importWrite, importSaved, fetchAll, fetchRelease, reimportTotal, reimportDecode,
        reimportWrite
    case edit
    case lookUps, keyedLookUps, newestPages, filteredCounts
    case graphImport, graphImportDecode, graphFetch, graphFetchPrefetched

    var label: String {
        switch self {
        case .importTotal: "import (decode + save)"
        case .importDecode: "  JSON decode"
        case .importWrite: "  write (one transaction)"
        case .importSaved: "  the same through decodeAndSave"
        case .fetchAll: "fetch all + read every field"
        case .fetchRelease: "  let go of what was fetched"
        case .reimportTotal: "re-import (upsert)"
        case .reimportDecode: "  JSON decode"
        case .reimportWrite: "  write (one transaction)"
        case .edit: "edit every object + save"
        case .lookUps: "\(QueryWorkload.lookUpCount) fetches by unique id"
        case .keyedLookUps: "  the same through fetch(_:unique:_:)"
        case .newestPages: "\(QueryWorkload.pageCount) fetches of 20 newest unread"
        case .filteredCounts: "\(QueryWorkload.countCount) filtered fetchCounts"
        case .graphImport: "graph import (nested authors)"
        case .graphImportDecode: "  the same through context.decode"
        case .graphFetch: "graph fetch + each author"
        case .graphFetchPrefetched: "  the same, authors prefetched"
        }
    }
}

/// A point in time for measuring spans; monotonic, so clock adjustments cannot skew it.
struct Instant {
    private let value = ContinuousClock.now

    /// Seconds from `self` to now.
    var elapsed: Double { Instant().seconds(since: self) }

    func seconds(since start: Instant) -> Double {
        let components = (value - start.value).components
        return Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// Whether `--spans` asked for each measured span to be named on standard error.
let listsSpans = CommandLine.arguments.contains("--spans")

/// Runs one measured span of `operation` on `side` and answers what it made, between two
/// marks that callgrind can see, so that it can count every span alone (the values made
/// are returned and released outside it: deallocation is timed only where a span says
/// so, `release(_:_:_:into:)`):
///
///     valgrind --tool=callgrind --zero-before='*spanStarts*' --dump-before='*spanEnds*' \
///         stash-bench --records 20000 --iterations 1 --no-rest --spans
///
/// writes one profile per span (`callgrind.out.PID.1`, `.2`, …) in the order that
/// `--spans` names them on standard error.
func span<Value>(_ operation: Operation, _ side: Side, _ body: () throws -> Value) rethrows -> Value {
    if listsSpans {
        FileHandle.standardError.write(Data("span: \(operation.spanName) \(side)\n".utf8))
    }
    let usage = reportsUsage ? ProcessUsage() : nil
    spanStarts()
    defer {
        spanEnds()
        if let usage { usage.report(operation, side) }
    }
    return try body()
}

/// Whether `--usage` asked for each span's processor time and page faults.
let reportsUsage = CommandLine.arguments.contains("--usage")

/// The process's processor time and page faults when a span starts (`getrusage`): a span
/// whose wall clock exceeds what its instructions explain shows here whether the rest is the
/// kernel's (system time: file writes, faults) or waiting. The import write's system time
/// was twice the baseline's, which found SQLite's statement journals spilling to a file.
struct ProcessUsage {
    private let start = Instant()
    private let before = ProcessUsage.now()

    private static func now() -> rusage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }

    /// Writes "usage SPAN SIDE: wall … user … system … faults …" on standard error.
    func report(_ operation: Operation, _ side: Side) {
        let after = Self.now()
        let user = Self.seconds(after.ru_utime) - Self.seconds(before.ru_utime)
        let system = Self.seconds(after.ru_stime) - Self.seconds(before.ru_stime)
        let line = String(
            format: "usage %@ %@: wall %.3f s, user %.3f s, system %.3f s, page faults %d\n", operation.spanName,
            "\(side)", start.elapsed, user, system,
            after.ru_minflt - before.ru_minflt + after.ru_majflt - before.ru_majflt)
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Times letting go of `value` (what a span made) as a span of `operation` on its own: the
/// assignment of `nil` inside it frees the value there. The caller hands it over with
/// `consume`, so that no other reference outlives the span.
func release<Value>(_ operation: Operation, _ side: Side, _ value: consuming Value, into results: inout Results) {
    results.add(operation, side, timeToRelease(consume value, asSpan: (operation, side)))
}

/// Seconds that letting go of `value` takes: the assignment of `nil` frees it between the
/// clocks (inside a span when one is named). The caller hands it over with `consume`.
@inline(never)
func timeToRelease<Value>(_ value: consuming Value, asSpan named: (Operation, Side)? = nil) -> Double {
    var held: Value? = consume value
    let start = Instant()
    if let (operation, side) = named {
        span(operation, side) { held = nil }
    } else {
        held = nil
    }
    let seconds = start.elapsed
    withExtendedLifetime(held) {}
    return seconds
}

/// The marks around a span: functions of their own, never inlined, that do something
/// (count), so that the calls stay.
@inline(never)
func spanStarts() { spanMarks.add(1, ordering: .relaxed) }

@inline(never)
func spanEnds() { spanMarks.subtract(1, ordering: .relaxed) }

/// Spans started and not ended.
let spanMarks = Atomic<Int>(0)

/// Samples per operation and side; the report shows medians, so one slow iteration (a
/// page-cache miss, the first run's one-time set-up) does not decide the result.
struct Results {
    private var samples: [Operation: [Side: [Double]]] = [:]

    mutating func add(_ operation: Operation, _ side: Side, _ seconds: Double) {
        samples[operation, default: [:]][side, default: []].append(seconds)
    }

    func median(_ operation: Operation, _ side: Side) -> Double? {
        guard let values = samples[operation]?[side], !values.isEmpty else { return nil }
        return stash_bench.median(values)
    }

    /// One line per iteration's raw numbers: the medians hide the spread.
    func iterationLine(_ iteration: Int) -> String {
        let parts = [
            Operation.importTotal, .importSaved, .fetchAll, .reimportTotal, .edit, .lookUps, .keyedLookUps,
            .newestPages,
            .filteredCounts,
            .graphImport,
            .graphImportDecode,
            .graphFetch,
            .graphFetchPrefetched,
        ].compactMap {
            operation -> String? in
            // An operation the run skipped (`--no-queries`, `--graph-only`) has no samples.
            guard samples[operation] != nil else { return nil }
            let baseline = samples[operation]?[.baseline]?[iteration] ?? .nan
            let stash = samples[operation]?[.stash]?[iteration] ?? .nan
            return "\(operation.shortLabel) \(format(baseline))/\(format(stash))"
        }
        return "  iteration \(iteration + 1) (baseline/stash s): " + parts.joined(separator: ", ")
    }

    func table() -> String {
        let labelWidth = Operation.allCases.map(\.label.count).max() ?? 0
        var lines = [
            row("operation", "baseline s", "stash s", "stash/baseline", labelWidth: labelWidth)
        ]
        lines.append(String(repeating: "-", count: lines[0].count))
        for operation in Operation.allCases {
            guard let baseline = median(operation, .baseline), let stash = median(operation, .stash) else { continue }
            let ratio = String(format: "%.2fx", stash / baseline)
            lines.append(
                row(operation.label, format(baseline), format(stash), ratio, labelWidth: labelWidth))
        }
        return lines.joined(separator: "\n")
    }

    private func row(_ label: String, _ baseline: String, _ stash: String, _ ratio: String, labelWidth: Int)
        -> String
    {
        leftAligned(label, labelWidth) + "  " + rightAligned(baseline, 10) + "  " + rightAligned(stash, 10) + "  "
            + rightAligned(ratio, 14)
    }

    private func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
    private func leftAligned(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
    private func rightAligned(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

extension Operation {
    /// One word for `--spans`.
    var spanName: String {
        switch self {
        case .importTotal: "import"
        case .importDecode: "import-decode"
        case .importWrite: "import-write"
        case .importSaved: "import-saved"
        case .fetchAll: "fetch"
        case .fetchRelease: "fetch-release"
        case .reimportTotal: "reimport"
        case .reimportDecode: "reimport-decode"
        case .reimportWrite: "reimport-write"
        case .edit: "edit"
        case .lookUps: "lookups"
        case .keyedLookUps: "keyed-lookups"
        case .newestPages: "newest"
        case .filteredCounts: "counts"
        case .graphImport: "graph-import"
        case .graphImportDecode: "graph-import-decode"
        case .graphFetch: "graph-fetch"
        case .graphFetchPrefetched: "graph-fetch-prefetched"
        }
    }

    fileprivate var shortLabel: String {
        switch self {
        case .importTotal, .importDecode, .importWrite: "import"
        case .importSaved: "saved import"
        case .fetchAll, .fetchRelease: "fetch"
        case .reimportTotal, .reimportDecode, .reimportWrite: "re-import"
        case .edit: "edit"
        case .lookUps: "by id"
        case .keyedLookUps: "by key"
        case .newestPages: "newest"
        case .filteredCounts: "count"
        case .graphImport: "graph import"
        case .graphImportDecode: "graph decode"
        case .graphFetch: "graph fetch"
        case .graphFetchPrefetched: "graph prefetch"
        }
    }
}

/// The middle of `values` (the mean of the two middle ones for an even count), 0 for none:
/// every table of the benchmark reports medians.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}
