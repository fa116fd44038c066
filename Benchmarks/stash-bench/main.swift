import Foundation

// stash-bench: Stash's decode-and-save recipe against a hand-written JSONDecoder + sqlite3
// baseline, on the same generated REST payload, in one run.
//
//     swift build -c release --product stash-bench && .build/release/stash-bench [--records N]

/// Command-line options; the defaults are the published benchmark.
struct Options {
    var records = 100_000
    var iterations = 5
    var readWhileWriting = true
    var rest = true
    var queries = true
    var graph = true
    /// How many authors the graph's essays name (`GraphPayload`).
    var authors = GraphPayload.defaultAuthorCount
    /// Only the REST import (for profiling it).
    var restOnly = false
    /// Only the graph import and fetch (for profiling them).
    var graphOnly = false
    /// How Stash's import and re-import decode (`StashRun.DecodePath`).
    var decodePath = StashRun.DecodePath.reader
    /// `postgres`: the PostgreSQL benchmark (`PostgresBench`) instead of SQLite's.
    var postgres = false
    /// Whether the memory of one import is measured (in child processes; `MemoryRun`).
    var memory = true
    /// In a child process: the side whose import's memory to measure (`MemoryRun.runSide`).
    var memorySide: MemoryRun.Side?
    /// The PostgreSQL server's URL (`--url`, else `STASH_POSTGRES_URL`).
    var postgresURL = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"]

    static let usage = """
        usage: stash-bench [--records N] [--iterations N] [--store sqlite|postgres [--url URL]]
          --records N     articles in the payload (default 100000)
          --iterations N  rounds of every measurement; the table shows medians (default 5)
          --no-read-while-writing  skip the main context's fetch latency during a background import
                          (for instruction counts of the import, fetch and re-import alone)
          --no-rest       skip the REST import over loopback HTTP
          --no-queries    skip the look-ups, newest pages and counts
          --no-graph      skip the graph import and fetch
          --authors N     authors the graph's essays name, each drawn at random (default 500;
                          as many as the essays: nearly every fetched essay's author is its own)
          --rest-only     only the REST import over loopback HTTP
          --graph-only    only the graph import and fetch (for profiling them)
          --no-memory     skip the peak memory of one import (a child process per side)
          --decode PATH   how Stash's import decodes: reader (context.decode, the byte-level
                          reader: the default), jsondecoder (context.decode through JSONDecoder),
                          recipe (JSONDecoder with the context in userInfo)
          --store postgres  Stash on PostgreSQL against hand-written libpq (COPY, pipelined
                          INSERT, text and binary SELECT): import, re-import, fetch all
          --url URL       the PostgreSQL server for --store postgres, a postgresql:// URI naming a
                          database beside which the run makes its own (default: STASH_POSTGRES_URL)
          --spans         name each measured span on standard error, in order, for callgrind's
                          per-span profiles (see `measuredSpan`)
          --usage         each span's processor time (user and system) and page faults, on
                          standard error
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--records", "--iterations", "--authors":
                guard let text = remaining.popFirst(), let value = Int(text), value > 0 else {
                    fail("\(argument) needs a positive whole number")
                }
                if argument == "--authors" {
                    options.authors = value
                    continue
                }
                if argument == "--records" { options.records = value } else { options.iterations = value }
            case "--no-read-while-writing":
                options.readWhileWriting = false
            case "--no-rest":
                options.rest = false
            case "--no-queries":
                options.queries = false
            case "--no-graph":
                options.graph = false
            case "--graph-only":
                options.graphOnly = true
                options.rest = false
                options.readWhileWriting = false
                options.memory = false
            case "--rest-only":
                options.restOnly = true
                options.readWhileWriting = false
                options.memory = false
            case "--decode":
                options.decodePath = choice(remaining.popFirst(), for: argument)
            case "--no-memory":
                options.memory = false
            case "--memory-side":
                options.memorySide = choice(remaining.popFirst(), for: argument)
            case "--store":
                switch remaining.popFirst() {
                case "sqlite": options.postgres = false
                case "postgres": options.postgres = true
                default: fail("--store takes sqlite or postgres")
                }
            case "--url":
                guard let url = remaining.popFirst() else { fail("--url needs a postgresql:// URI") }
                options.postgresURL = url
            case "--spans":
                break  // read by `listsSpans`
            case "--usage":
                break  // read by `reportsUsage`
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        if options.graphOnly, options.postgres || options.restOnly {
            fail("--graph-only runs SQLite's graph alone: not with --store postgres or --rest-only")
        }
        return options
    }

    /// The value of an option that takes one of a type's cases by name, or the usage error
    /// naming them.
    private static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String?, for option: String) -> Choice
    where Choice.RawValue == String {
        guard let text, let value = Choice(rawValue: text) else {
            fail("\(option) takes " + Choice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("stash-bench: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if options.postgres {
    do {
        guard let url = options.postgresURL else {
            throw BenchError("--store postgres needs --url or STASH_POSTGRES_URL (a postgresql:// URI)")
        }
        var bench = try PostgresBench(records: options.records, iterations: options.iterations, url: url)
        try bench.run()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("stash-bench: failed: \(error)\n".utf8))
        exit(1)
    }
}
let payload = Payload.generate(count: options.records)
if let side = options.memorySide {
    do {
        try MemoryRun.runSide(side, payload: payload)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("stash-bench: memory run failed: \(error)\n".utf8))
        exit(1)
    }
}
let megabytes = Double(payload.data.count) / 1_000_000
print(
    "stash-bench: \(payload.count) records, JSON \(String(format: "%.1f", megabytes)) MB "
        + "(\(payload.data.count / max(payload.count, 1)) bytes/record), \(options.iterations) iterations, medians")

let root = FileManager.default.temporaryDirectory.appendingPathComponent("stash-bench-\(getpid())")
var results = Results()
var readWhileWriting = ReadWhileWriting.Latencies()
var restImport = RESTImport.Measurements()
var memory: [(MemoryRun.Side, MemoryRun.Sample)] = []
do {
    if options.memory { memory = try MemoryRun.measure(records: options.records) }
    for index in 0..<(options.restOnly ? 0 : options.iterations) {
        let directory = root.appendingPathComponent("iteration-\(index + 1)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var iteration = Iteration(
            payload: payload, directory: directory,
            order: index.isMultiple(of: 2) ? [.baseline, .stash] : [.stash, .baseline],
            compareStores: index == 0)
        iteration.queries = options.queries
        iteration.graph = options.graph
        iteration.graphOnly = options.graphOnly
        iteration.authors = options.authors
        iteration.decodePath = options.decodePath
        try iteration.run(into: &results)
        try FileManager.default.removeItem(at: directory)
        print(results.iterationLine(index))
    }
    if options.readWhileWriting {
        let directory = root.appendingPathComponent("read-while-writing")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        readWhileWriting = try runOnMainActor { try await ReadWhileWriting.measure(payload, in: directory) }
    }
    if options.rest {
        let directory = root.appendingPathComponent("rest")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        restImport = try runOnMainActor {
            try await RESTImport.measure(payload, iterations: options.iterations, in: directory)
        }
    }
    try? FileManager.default.removeItem(at: root)
} catch {
    try? FileManager.default.removeItem(at: root)
    FileHandle.standardError.write(Data("stash-bench: failed: \(error)\n".utf8))
    exit(1)
}
if !options.restOnly {
    print()
    print(results.table())
}
if options.memory {
    print()
    print(MemoryRun.report(memory, payloadBytes: payload.data.count))
}
if options.readWhileWriting {
    print()
    print(ReadWhileWriting.report(readWhileWriting))
}
if options.rest {
    print()
    print(RESTImport.report(restImport, records: payload.count))
}
