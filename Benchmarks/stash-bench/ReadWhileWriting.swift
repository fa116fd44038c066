import Foundation
import Stash
import Synchronization

/// The main context's fetch latency on an idle store, and while a background context
/// imports and saves a payload of the same size: readers run on connections of their own,
/// so a save that commits should not hold them up.
///
/// Each fetch reads a page of 20 articles at an offset that moves, into a context reset
/// before each, so every fetch builds its objects. The result is the median and the 99th
/// percentile of each phase.
enum ReadWhileWriting {
    struct Latencies {
        var idle: [Double] = []
        var busy: [Double] = []
    }

    @MainActor
    static func measure(_ payload: Payload, in directory: URL) async throws -> Latencies {
        let container = try StashRun.createStore(at: directory.appendingPathComponent("read-while-writing.sqlite").path)
        try await container.performBackgroundTask { context in
            _ = try context.decode([Article].self, from: payload.data, using: Timestamp.makeDecoder())
            try context.save()
        }
        let main = container.mainContext
        var latencies = Latencies()
        var page = 0
        for _ in 0..<300 {
            latencies.idle.append(try fetchPage(&page, of: payload.count, from: main))
            await Task.yield()
        }
        // A payload of new articles, imported and saved in the background.
        let more = Payload.generate(count: payload.count, seed: 7, firstID: 50_000_000)
        let done = Atomic<Bool>(false)
        let writer = Task.detached {
            defer { done.store(true, ordering: .releasing) }
            try await container.performBackgroundTask { context in
                _ = try context.decode([Article].self, from: more.data, using: Timestamp.makeDecoder())
                try context.save()
            }
        }
        while !done.load(ordering: .acquiring) {
            latencies.busy.append(try fetchPage(&page, of: payload.count, from: main))
            await Task.yield()
        }
        try await writer.value
        let count = try main.fetchCount(FetchDescriptor<Article>())
        precondition(count == 2 * payload.count, "read-while-writing: \(count) articles after the import")
        return latencies
    }

    /// Fetches the next page of 20 and returns how long it took.
    @MainActor
    private static func fetchPage(_ page: inout Int, of count: Int, from main: ManagedObjectContext) throws -> Double {
        var descriptor = FetchDescriptor<Article>()
        descriptor.fetchLimit = 20
        descriptor.fetchOffset = (page * 37) % min(max(count - 20, 1), 2_000)
        page += 1
        main.reset()  // so that every fetch builds its objects
        let start = Instant()
        let articles = try main.fetch(descriptor)
        let seconds = start.elapsed
        precondition(articles.count == 20, "read-while-writing: a page of \(articles.count)")
        return seconds
    }

    /// `p50 idle / busy, p99 idle / busy, busy ÷ idle` as a table row.
    static func report(_ latencies: Latencies) -> String {
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        let idle50 = percentile(latencies.idle, 0.5)
        let busy50 = percentile(latencies.busy, 0.5)
        let milliseconds = { (value: Double) in String(format: "%.3f ms", value * 1000) }
        return """
            main-context fetch of 20 (\(latencies.idle.count) idle, \(latencies.busy.count) during a background import + save)
              median       idle \(milliseconds(idle50))   busy \(milliseconds(busy50))   busy/idle \(String(format: "%.2f", busy50 / idle50))x
              99th pct     idle \(milliseconds(percentile(latencies.idle, 0.99)))   busy \(milliseconds(percentile(latencies.busy, 0.99)))
            """
    }
}
