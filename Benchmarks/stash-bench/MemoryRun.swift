import Foundation
import Stash
import TestProcesses

#if canImport(Glibc)
    import Glibc
#endif

/// Peak memory of one import (decode + save into a new store), each side in a process of its
/// own: a process's resident memory rarely shrinks once the allocator has the pages, so two
/// sides measured in one process would share them.
///
/// The child (`--memory-side SIDE`) generates the payload, resets the kernel's high-water mark
/// (`/proc/self/clear_refs`), imports, and reports the peak resident memory above what it held
/// before the import (the payload included there), then what it still holds once the import's
/// objects are dropped, its store and context kept (and used once more: a count), and the
/// allocator has returned what it can (`malloc_trim`).
enum MemoryRun {
    enum Side: String, CaseIterable {
        case baseline, stash, recipe, saved

        var label: String {
            switch self {
            case .baseline: "baseline (JSONDecoder + sqlite3)"
            case .stash: "Stash, context.decode"
            case .recipe: "Stash, the recipe (JSONDecoder)"
            case .saved: "Stash, decodeAndSave"
            }
        }
    }

    struct Sample {
        /// Bytes above the resident memory before the import, at the import's peak.
        var peak: Int
        /// Bytes above it once the import's values are dropped (its store and context kept).
        var held: Int
    }

    /// Runs each side in a child process of this executable and answers its figures.
    static func measure(records: Int) throws -> [(Side, Sample)] {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return try Side.allCases.map { side in
            let child = try ChildProcess(
                executable, ["--memory-side", side.rawValue, "--records", String(records)],
                standardOutput: .pipe)
            let output = String(decoding: child.standardOutputReader!.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            guard numbers.count == 2 else {
                throw BenchError("the \(side.rawValue) memory run printed \(output.debugDescription)")
            }
            return (side, Sample(peak: numbers[0], held: numbers[1]))
        }
    }

    /// The child's part: one import of `payload` on `side`, then "PEAK HELD" in bytes.
    static func runSide(_ side: Side, payload: Payload) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stash-bench-memory-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        trimMalloc()
        try resetPeak()
        let before = try status("VmRSS")
        let peak: Int
        let held: Int
        switch side {
        case .baseline:
            let database = try Baseline.createStore(at: path)
            var records: [ArticleRecord]? = try Baseline.decode(payload.data)
            try Baseline.write(records!, to: database, upsert: false)
            precondition(records!.count == payload.count)
            peak = try status("VmHWM") - before
            records = nil
            trimMalloc()
            held = try status("VmRSS") - before
            withExtendedLifetime(database) {}
        case .stash, .recipe:
            // What an app holds after an import: its container and context, not the
            // objects it has done with.
            let container = try StashRun.createStore(at: path)
            var (context, articles): (ManagedObjectContext, [Article]?) = try StashRun.decode(
                payload.data, into: container, path: side == .stash ? .reader : .recipe)
            try context.save()
            precondition(articles!.count == payload.count)
            peak = try status("VmHWM") - before
            articles = nil
            // The context's next use gives back what it kept for the freed objects.
            let counted = try context.fetchCount(FetchDescriptor<Article>())
            precondition(counted == payload.count)
            trimMalloc()
            held = try status("VmRSS") - before
            withExtendedLifetime(context) {}
        case .saved:
            let container = try StashRun.createStore(at: path)
            let context = ManagedObjectContext(container)
            let imported = try context.decodeAndSave([Article].self, from: payload.data, using: Timestamp.makeDecoder())
            precondition(imported.decoded == payload.count)
            peak = try status("VmHWM") - before
            let counted = try context.fetchCount(FetchDescriptor<Article>())
            precondition(counted == payload.count)
            trimMalloc()
            held = try status("VmRSS") - before
            withExtendedLifetime(context) {}
        }
        print(peak, held)
    }

    /// glibc's `malloc_trim(0)`: free pages go back to the kernel, so resident memory shows
    /// what is still allocated. (Looked up at run time: `<malloc.h>` is not in Glibc's module.)
    private static func trimMalloc() {
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
    }

    /// The kernel's high-water mark of resident memory starts again from now.
    private static func resetPeak() throws {
        let file = open("/proc/self/clear_refs", O_WRONLY)
        defer { if file >= 0 { close(file) } }
        guard file >= 0, write(file, "5", 1) == 1 else {
            throw BenchError("cannot reset the peak resident memory (/proc/self/clear_refs): errno \(errno)")
        }
    }

    /// A `/proc/self/status` figure in bytes (`VmRSS`, `VmHWM`).
    private static func status(_ name: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            if let kilobytes = line.split(separator: " ").compactMap({ Int($0) }).first { return kilobytes * 1024 }
        }
        throw BenchError("no \(name) in /proc/self/status")
    }

    static func report(_ samples: [(Side, Sample)], payloadBytes: Int) -> String {
        func megabytes(_ bytes: Int) -> String { String(format: "%7.1f MB", Double(bytes) / 1_000_000) }
        let baseline = samples.first { $0.0 == .baseline }?.1.peak ?? 1
        var lines = [
            "Memory of one import in a fresh process (payload \(megabytes(payloadBytes).trimmingCharacters(in: .whitespaces))):",
            "side                              peak above start   ÷ payload  ÷ baseline   held after",
        ]
        for (side, sample) in samples {
            lines.append(
                side.label.padding(toLength: 34, withPad: " ", startingAt: 0) + megabytes(sample.peak)
                    + String(
                        format: "         %5.2fx      %5.2fx", Double(sample.peak) / Double(payloadBytes),
                        Double(sample.peak) / Double(baseline))
                    + "  " + megabytes(sample.held))
        }
        return lines.joined(separator: "\n")
    }
}
