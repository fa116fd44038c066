import Foundation
import Stash
import StashREST

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The payload served over loopback HTTP: StashREST's one call into the main context,
/// against hand-written `URLSession` + `JSONDecoder` + sqlite3; and how long the main actor
/// is held while Stash's call runs (a main-actor task that wakes every 2 ms notes the longest
/// gap between its wake-ups).
enum RESTImport {
    struct Measurements {
        var baseline: [Double] = []
        /// The baseline's download alone.
        var download: [Double] = []
        var stash: [Double] = []
        /// The longest main-actor stall of each Stash run, in seconds.
        var stalls: [Double] = []
        /// How long the main actor was held in all, each Stash run, in seconds.
        var held: [Double] = []
        /// Stash's one call over the same records served as pages of `pageSize`.
        var paged: [Double] = []
        /// The same pages with the next page's URL in the body (`{"items": …, "next": …}`).
        var pagedByBody: [Double] = []
        /// The `Link`-paged run again, each page answered `latency` late.
        var pagedLate: [Double] = []
        /// The `Link`-paged run again from a server that closes each connection after one
        /// answer, so each page is asked for on a new connection.
        var pagedClosing: [Double] = []
        /// The same payload fetched again, nothing changed: the baseline downloads, decodes
        /// and upserts it; Stash's call finds the answer it kept (`BodyFingerprint`).
        var baselineAgain: [Double] = []
        var stashAgain: [Double] = []
        var pageCount = 0
        /// The baseline's decode and write, each run.
        var baselineDecode: [Double] = []
        var baselineWrite: [Double] = []
        /// Where Stash's one-page call and its `Link`-paged call spent their time
        /// (`ImportReport.phases`), with the calls' durations.
        var phases: [ImportReport] = []
        var pagedPhases: [ImportReport] = []
    }

    /// Records per page of the paged run.
    static let pageSize = 100
    /// How late the late server answers each page: a short network round trip.
    static let latency = Duration.milliseconds(2)

    @MainActor
    static func measure(_ payload: Payload, iterations: Int, in directory: URL) async throws -> Measurements {
        let server = try LoopbackServer(body: payload.data)
        defer { server.stop() }
        let pages = payload.pages(of: pageSize)
        let pagedServer = try LoopbackServer(pages: pages)
        defer { pagedServer.stop() }
        let bodyPagedServer = try LoopbackServer(pages: pages, nextInBody: true)
        defer { bodyPagedServer.stop() }
        let lateServer = try LoopbackServer(pages: pages, latency: latency)
        defer { lateServer.stop() }
        let closingServer = try LoopbackServer(pages: pages, keepsConnections: false)
        defer { closingServer.stop() }
        var configuration = RESTConfiguration()
        configuration.makeDecoder = Timestamp.makeDecoder
        let api = RESTClient(baseURL: server.url.deletingLastPathComponent(), configuration: configuration)
        let pagedAPI = RESTClient(baseURL: pagedServer.url.deletingLastPathComponent(), configuration: configuration)
        let bodyPagedAPI = RESTClient(
            baseURL: bodyPagedServer.url.deletingLastPathComponent(), configuration: configuration)
        let lateAPI = RESTClient(baseURL: lateServer.url.deletingLastPathComponent(), configuration: configuration)
        let closingAPI = RESTClient(
            baseURL: closingServer.url.deletingLastPathComponent(), configuration: configuration)
        var measurements = Measurements()
        measurements.pageCount = pages.count
        for index in 0..<iterations {
            // Hand-written: download, decode into structs, insert in one transaction.
            let database = try Baseline.createStore(
                at: directory.appendingPathComponent("rest-baseline-\(index).sqlite").path)
            var start = ContinuousClock.now
            let (data, _) = try await URLSession.shared.data(from: server.url)
            measurements.download.append(seconds(ContinuousClock.now - start))
            let decodeStart = ContinuousClock.now
            let records = try Baseline.decode(data)
            let writeStart = ContinuousClock.now
            measurements.baselineDecode.append(seconds(writeStart - decodeStart))
            try Baseline.write(records, to: database, upsert: false)
            measurements.baselineWrite.append(seconds(ContinuousClock.now - writeStart))
            measurements.baseline.append(seconds(ContinuousClock.now - start))
            precondition(records.count == payload.count, "the baseline stored \(records.count) records")

            let container = try StashRun.createStore(
                at: directory.appendingPathComponent("rest-stash-\(index).sqlite").path)
            let meter = StallMeter()
            meter.start()
            start = ContinuousClock.now
            let result = try await api.fetchReporting([Article].self, from: "articles", into: container.mainContext)
            let articles = result.value
            measurements.stash.append(seconds(ContinuousClock.now - start))
            measurements.phases.append(result.report)
            let (longest, held) = await meter.stop()
            measurements.stalls.append(longest)
            measurements.held.append(held)
            precondition(articles.count == payload.count, "Stash returned \(articles.count) articles")

            // Again, nothing changed (the loopback server sends no validators).
            start = ContinuousClock.now
            let (again, _) = try await URLSession.shared.data(from: server.url)
            try Baseline.write(try Baseline.decode(again), to: database, upsert: true)
            measurements.baselineAgain.append(seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            let articlesAgain = try await api.fetch([Article].self, from: "articles", into: container.mainContext)
            measurements.stashAgain.append(seconds(ContinuousClock.now - start))
            precondition(articlesAgain.count == payload.count, "Stash returned \(articlesAgain.count) articles again")

            // The same records, a page of `pageSize` a request, following the Link header.
            let pagedContainer = try StashRun.createStore(
                at: directory.appendingPathComponent("rest-stash-paged-\(index).sqlite").path)
            start = ContinuousClock.now
            var options = FetchOptions()
            options.pageLimit = pages.count
            let pagedResult = try await pagedAPI.fetchReporting(
                [Article].self, from: "articles?page=1", into: pagedContainer.mainContext, options: options)
            let pagedArticles = pagedResult.value
            measurements.paged.append(seconds(ContinuousClock.now - start))
            measurements.pagedPhases.append(pagedResult.report)
            precondition(pagedArticles.count == payload.count, "Stash returned \(pagedArticles.count) paged articles")

            // The same pages, the next one named in the body.
            let bodyPagedContainer = try StashRun.createStore(
                at: directory.appendingPathComponent("rest-stash-body-paged-\(index).sqlite").path)
            start = ContinuousClock.now
            options.itemsKey = "items"
            options.pagination = .nextURL(key: "next")
            let bodyPagedArticles = try await bodyPagedAPI.fetch(
                [Article].self, from: "articles?page=1", into: bodyPagedContainer.mainContext, options: options)
            measurements.pagedByBody.append(seconds(ContinuousClock.now - start))
            precondition(
                bodyPagedArticles.count == payload.count,
                "Stash returned \(bodyPagedArticles.count) body-paged articles")

            // The `Link` pages again, each answered late.
            let lateContainer = try StashRun.createStore(
                at: directory.appendingPathComponent("rest-stash-late-\(index).sqlite").path)
            var lateOptions = FetchOptions()
            lateOptions.pageLimit = pages.count
            start = ContinuousClock.now
            let lateArticles = try await lateAPI.fetch(
                [Article].self, from: "articles?page=1", into: lateContainer.mainContext, options: lateOptions)
            measurements.pagedLate.append(seconds(ContinuousClock.now - start))
            precondition(lateArticles.count == payload.count, "Stash returned \(lateArticles.count) late articles")

            // The `Link` pages again, each on a new connection.
            let closingContainer = try StashRun.createStore(
                at: directory.appendingPathComponent("rest-stash-closing-\(index).sqlite").path)
            start = ContinuousClock.now
            let closingArticles = try await closingAPI.fetch(
                [Article].self, from: "articles?page=1", into: closingContainer.mainContext, options: lateOptions)
            measurements.pagedClosing.append(seconds(ContinuousClock.now - start))
            precondition(
                closingArticles.count == payload.count, "Stash returned \(closingArticles.count) articles, closing")
        }
        return measurements
    }

    static func report(_ measurements: Measurements, records: Int) -> String {
        let baseline = median(measurements.baseline)
        let stash = median(measurements.stash)
        return """
            REST import over loopback HTTP (\(records) records, one call into the main context)
              baseline \(format(baseline)) s (download \(format(median(measurements.download))) s)   stash \(format(stash)) s   stash/baseline \(String(format: "%.2fx", stash / baseline))
              longest main-actor stall during Stash's call: \(String(format: "%.1f", (measurements.stalls.max() ?? 0) * 1_000)) ms, \
            held \(String(format: "%.0f", median(measurements.held) * 1_000)) ms in all
              \(measurements.pageCount) pages of \(pageSize) records in one call: \(format(median(measurements.paged))) s, \
            ÷ the same records in one page \(String(format: "%.2fx", median(measurements.paged) / stash))
              the same pages, the next page's URL in the body: \(format(median(measurements.pagedByBody))) s, \
            ÷ one page \(String(format: "%.2fx", median(measurements.pagedByBody) / stash))
              the Link pages, each answered \(latency.components.attoseconds / 1_000_000_000_000_000) ms late: \(format(median(measurements.pagedLate))) s, \
            \(String(format: "%.2f", (median(measurements.pagedLate) - median(measurements.paged)) * 1_000 / Double(max(measurements.pageCount, 1)))) ms a page more
              the Link pages, each on a new connection: \(format(median(measurements.pagedClosing))) s, \
            ÷ one page \(String(format: "%.2fx", median(measurements.pagedClosing) / stash))
              where the time went (medians, s): baseline download \(format(median(measurements.download))), decode \(format(median(measurements.baselineDecode))), write \(format(median(measurements.baselineWrite)))
              stash, one page: \(phases(measurements.phases))
              stash, \(measurements.pageCount) pages: \(phases(measurements.pagedPhases))
              again, nothing changed: baseline \(format(median(measurements.baselineAgain))) s   \
            stash \(format(median(measurements.stashAgain))) s   \
            stash/baseline \(String(format: "%.2fx", median(measurements.stashAgain) / median(measurements.baselineAgain)))
            """
    }

    /// Each phase's median over the runs, and what the phases leave of the call's duration.
    private static func phases(_ reports: [ImportReport]) -> String {
        func part(_ phase: (ImportPhases) -> Duration) -> String {
            format(median(reports.map { seconds(phase($0.phases)) }))
        }
        let other = format(median(reports.map { seconds($0.duration - $0.phases.total) }))
        return "waiting \(part(\.waiting)), decoding \(part(\.decoding)), saving \(part(\.saving)), "
            + "recording \(part(\.recording)), handing over \(part(\.handingOver)), other \(other)"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// Notes the longest time the main actor could not run a task that wants to wake every 2 ms,
/// and the sum of those delays beyond 1 ms (about how long the main actor was held in all).
@MainActor
final class StallMeter {
    private var longest: Duration = .zero
    private var held: Duration = .zero
    private var running = false
    private var task: Task<Void, Never>?

    func start() {
        running = true
        task = Task { @MainActor in
            while running {
                let before = ContinuousClock.now
                try? await Task.sleep(for: .milliseconds(2))
                let late = ContinuousClock.now - before - .milliseconds(2)
                longest = max(longest, late)
                if late > .milliseconds(1) { held += late }
            }
        }
    }

    /// Stops and answers the longest stall and the time held in all, in seconds.
    func stop() async -> (longest: Double, held: Double) {
        running = false
        await task?.value
        return (RESTImport.seconds(longest), RESTImport.seconds(held))
    }
}
