import Foundation
import Stash
import StashREST

extension FeedLibrary {
    /// How many feeds are fetched at once.
    static let refreshWidth = 4

    /// A feed as a refresh plans it: read from the store before any request goes out.
    struct PlannedFeed: Sendable {
        var url: String
        var validators: HTTPValidators
        /// When a backoff or `Retry-After` lets the feed be fetched again, if later than now.
        var notBefore: Date?
    }

    /// Refreshes every feed (or the one named, which is always fetched), at most 4 at once
    /// and one request at a time per host. A feed still backed off after failures, or whose
    /// host asked to wait, is skipped. Never throws: each feed's failure is in the report and
    /// in the store (`lastError`), and one feed's failure stops no other.
    public func refresh(
        _ url: String? = nil, progress: (@Sendable (RefreshProgress) -> Void)? = nil
    ) async -> RefreshReport {
        let plan: [PlannedFeed]
        do {
            plan = try await container.performBackgroundTask { context in
                if let url {
                    let feed = try Self.feed(url, in: context)
                    return [PlannedFeed(url: feed.url, validators: Self.validators(of: feed), notBefore: nil)]
                }
                let now = Date()
                return try context.fetch(FetchDescriptor<Feed>(sortBy: [SortDescriptor(\.title)])).map {
                    PlannedFeed(
                        url: $0.url, validators: Self.validators(of: $0),
                        notBefore: $0.nextRefresh.flatMap { $0 > now ? $0 : nil })
                }
            }
        } catch {
            return RefreshReport(feeds: [FeedRefreshResult(url: url ?? "", status: .failed, error: "\(error)")])
        }
        var results = [FeedRefreshResult?](repeating: nil, count: plan.count)
        var done = 0
        await withTaskGroup(of: (Int, FeedRefreshResult).self) { group in
            var next = 0
            func start() {
                guard next < plan.count else { return }
                let index = next
                let feed = plan[index]
                group.addTask { (index, await self.refresh(feed)) }
                next += 1
            }
            for _ in 0..<Self.refreshWidth { start() }
            while let (index, result) = await group.next() {
                results[index] = result
                done += 1
                progress?(RefreshProgress(done: done, total: plan.count, url: result.url))
                start()
            }
        }
        return RefreshReport(feeds: results.compactMap { $0 })
    }

    /// One feed's refresh: a conditional GET, then the document written, or the failure.
    func refresh(_ planned: PlannedFeed) async -> FeedRefreshResult {
        if let notBefore = planned.notBefore {
            return FeedRefreshResult(
                url: planned.url, status: .skipped,
                error: "backed off after failures until \(notBefore.formatted(.iso8601))")
        }
        guard let url = URL(string: planned.url) else {
            return await failed(planned.url, "\(planned.url): not a URL", retryAfter: nil)
        }
        let response: RESTResponse
        do {
            response = try await fetcher.get(url, validators: planned.validators.isEmpty ? nil : planned.validators)
        } catch let failure as FetchFailure {
            if let until = failure.hostWaiting { return await postponed(planned.url, until: until, failure.message) }
            return await failed(planned.url, failure.message, retryAfter: failure.retryAfter)
        } catch {
            return await failed(planned.url, "\(planned.url): \(error)", retryAfter: nil)
        }
        do {
            if response.notModified {
                try await container.performBackgroundTask { context in
                    let feed = try Self.feed(planned.url, in: context)
                    DocumentWriter(context: context).recordSuccess(of: feed, validators: response.validators)
                    try context.save()
                }
                return FeedRefreshResult(url: planned.url, status: .notModified)
            }
            let document = try FeedParser.parse(response.body, url: response.url, contentType: response.contentType)
            let (new, updated) = try await writing { context in
                let feed = try Self.feed(planned.url, in: context)
                let counts = try DocumentWriter(context: context).write(
                    document, to: feed, validators: response.validators)
                try context.save()
                return counts
            }
            return FeedRefreshResult(url: planned.url, status: .updated, new: new, updated: updated)
        } catch let error as FeedParseError {
            // Its description names the URL already.
            return await failed(planned.url, "\(error)", retryAfter: nil)
        } catch {
            return await failed(planned.url, "\(planned.url): \(error)", retryAfter: nil)
        }
    }

    /// Records the failure on the feed (counted, backed off) and answers it.
    private func failed(_ url: String, _ message: String, retryAfter: TimeInterval?) async -> FeedRefreshResult {
        do {
            try await container.performBackgroundTask { context in
                let feed = try Self.feed(url, in: context)
                DocumentWriter(context: context).recordFailure(of: feed, message: message, retryAfter: retryAfter)
                try context.save()
            }
            return FeedRefreshResult(url: url, status: .failed, error: message)
        } catch {
            return FeedRefreshResult(url: url, status: .failed, error: "\(message); and recording it failed: \(error)")
        }
    }

    /// A feed not asked because its host asked to wait: skipped, and left alone until then,
    /// its failures not counted.
    private func postponed(_ url: String, until: Date, _ message: String) async -> FeedRefreshResult {
        do {
            try await container.performBackgroundTask { context in
                let feed = try Self.feed(url, in: context)
                if (feed.nextRefresh ?? .distantPast) < until { feed.nextRefresh = until }
                try context.save()
            }
        } catch {
            return FeedRefreshResult(url: url, status: .failed, error: "\(message); and recording it failed: \(error)")
        }
        return FeedRefreshResult(url: url, status: .skipped, error: message)
    }

    static func validators(of feed: Feed) -> HTTPValidators {
        HTTPValidators(etag: feed.etag, lastModified: feed.lastModified)
    }
}
