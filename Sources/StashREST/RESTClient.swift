import Foundation
import Stash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Both steps of the recipe in one call: request, check the response, decode straight into
/// the store, resolve uniques and relationships, save. All of it, or nothing.
///
/// ```swift
/// let api = RESTClient(baseURL: URL(string: "https://api.example.com/v1/")!)
/// let posts = try await api.fetch([Post].self, from: "posts", into: context)
/// ```
///
/// The download, the decoding and the save run off the caller's executor, in a background
/// context of `context`'s container; then the caller gets `context`'s own objects, which the
/// save has reached. A failure anywhere (an HTTP error, item 900 of 1,000 that does not
/// decode, the save, the task's cancellation) saves nothing and leaves `context` as it was.
public final class RESTClient: Sendable {
    /// What paths resolve against: `posts` against `https://api.example.com/v1/` is
    /// `https://api.example.com/v1/posts` (mind the trailing slash, as URLs have it).
    public let baseURL: URL
    public let configuration: RESTConfiguration
    private let transport: HTTPTransport

    /// - Parameter sessionConfiguration: the `URLSession` underneath (proxies, TLS, protocol
    ///   classes); its timeout and cache settings are the client's.
    public init(
        baseURL: URL, configuration: RESTConfiguration = RESTConfiguration(),
        sessionConfiguration: URLSessionConfiguration = .ephemeral
    ) {
        self.baseURL = baseURL
        self.configuration = configuration
        transport = HTTPTransport(configuration: configuration, sessionConfiguration: sessionConfiguration)
    }

    deinit {
        transport.invalidate()
    }

    // MARK: Fetching

    /// The objects at `path` (every page), decoded into the store and saved, as `context`'s
    /// objects. After a 304, or the same answer as last time (nothing changed since the last
    /// fetch), the objects the last fetch of the URL returned, nothing decoded or saved.
    public func fetch<T: ManagedObject & Decodable>(
        _ type: [T].Type, from path: String, into context: ManagedObjectContext,
        options: FetchOptions = FetchOptions(), isolation: isolated (any Actor)? = #isolation
    ) async throws -> [T] {
        try await fetchReporting(type, from: path, into: context, options: options).value
    }

    /// The object at `path`, decoded into the store and saved, as `context`'s object. After
    /// a 304, or the same answer again, the object the last full answer held.
    public func fetch<T: ManagedObject & Decodable>(
        _ type: T.Type, from path: String, into context: ManagedObjectContext,
        options: FetchOptions = FetchOptions(), isolation: isolated (any Actor)? = #isolation
    ) async throws -> T {
        try await fetchReporting(type, from: path, into: context, options: options).value
    }

    /// The object at `path`, with a report of what the call did (a feed document with its
    /// items nested: how many were inserted and updated, whether nothing had changed: a 304,
    /// or the same answer as last time).
    ///
    /// One request, unless `options.pagination` names a next URL or cursor in the body
    /// (`.nextURL(key: "next_url")`, JSON Feed's): each page is the same object again, its
    /// nested lists decoded as their `ListDecoding` says (`.merge` gathers every page's).
    /// A `Link` header is not followed for one object.
    public func fetchReporting<T: ManagedObject & Decodable>(
        _ type: T.Type, from path: String, into context: ManagedObjectContext,
        options: FetchOptions = FetchOptions(), isolation: isolated (any Actor)? = #isolation
    ) async throws -> FetchResult<T> {
        var options = options
        switch options.pagination {
        case .nextURL, .cursor: break
        case .none, .linkHeader, .page, .offset: options.pagination = .none
        }
        // A caller that may not use `context` here learns it now, not after the download.
        context.checkCaller()
        var (handover, report) = try await run(
            T.self, many: false, path: path, container: context.container, options, nil)
        guard let object = try await Self.objects(T.self, from: handover, in: context, reporting: &report).first else {
            throw RESTError(.decoding, "the response held no \(T.self)", url: try url(for: path, options))
        }
        return FetchResult(value: object, report: report)
    }

    /// The list at `path` as the children of `parent`: each item takes `parent` as its
    /// `relationship` before it is matched by its unique values (so items unique per parent,
    /// `[\.feed, \.guid]`, find their rows), as `context.decode(_:from:using:parent:via:)`
    /// does. `parent` must be saved.
    public func fetch<Child: ManagedObject & Decodable, Parent: ManagedObject>(
        _ type: [Child].Type, from path: String, into context: ManagedObjectContext, parent: Parent,
        via relationship: ReferenceWritableKeyPath<Child, Parent?> & Sendable, options: FetchOptions = FetchOptions(),
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> [Child] {
        try await fetchReporting(type, from: path, into: context, parent: parent, via: relationship, options: options)
            .value
    }

    /// `fetch(_:from:into:parent:via:)` with a report; with `deletingMissing`, a sync of the
    /// parent's children alone: those of the scope that no page returned are deleted, and
    /// no other parent's.
    public func fetchReporting<Child: ManagedObject & Decodable, Parent: ManagedObject>(
        _ type: [Child].Type, from path: String, into context: ManagedObjectContext, parent: Parent,
        via relationship: ReferenceWritableKeyPath<Child, Parent?> & Sendable, options: FetchOptions = FetchOptions(),
        deletingMissing scope: SyncScope<Child>? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> FetchResult<[Child]> {
        context.checkCaller()
        let scoped = try ImportParent(parent, via: relationship, url: try url(for: path, options))
        var (handover, report) = try await run(
            Child.self, many: true, path: path, container: context.container, options, scope, parent: scoped)
        let objects = try await Self.objects(Child.self, from: handover, in: context, reporting: &report)
        return FetchResult(value: objects, report: report)
    }

    /// `fetch`, with a report of what it did; with `deletingMissing`, a sync: the objects of
    /// `T` (or those the scope's predicate matches, one feed's entries) that no page
    /// returned are deleted, once, at the end, in the same transaction.
    public func fetchReporting<T: ManagedObject & Decodable>(
        _ type: [T].Type, from path: String, into context: ManagedObjectContext,
        options: FetchOptions = FetchOptions(), deletingMissing scope: SyncScope<T>? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> FetchResult<[T]> {
        context.checkCaller()
        var (handover, report) = try await run(
            T.self, many: true, path: path, container: context.container, options, scope)
        let objects = try await Self.objects(T.self, from: handover, in: context, reporting: &report)
        return FetchResult(value: objects, report: report)
    }

    /// How many objects the caller's context takes between two yields of its executor: the
    /// main actor is held for one batch at a time, not for the whole payload (390 ms for
    /// 100,000 objects read back at once, stash-bench).
    static let handoverBatch = 2_000

    /// `context`'s objects for what the import handed over, a batch at a time with the
    /// caller's executor given up in between, so that a large import does not hold the main
    /// actor at its end either. Objects that left the import's context are adopted; the others'
    /// rows are read. Each batch is let go once used: freeing 100,000 copies at once held
    /// the main actor 50 ms.
    /// The time it takes counts in `report`'s duration, as handing over.
    private static func objects<T: ManagedObject>(
        _ type: T.Type, from handover: consuming HandOver, in context: ManagedObjectContext,
        reporting report: inout ImportReport, isolation: isolated (any Actor)? = #isolation
    ) async throws -> [T] {
        let started = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - started
            report.duration += took
            report.phases.handingOver += took
        }
        // Gathered untyped, and only the `T`s: unspecialized code that appends to a `[T]`, or
        // casts to `T`, looks its type up each time (an object's `as? T` cost 900 instructions;
        // stash-bench's REST import under callgrind).
        var objects: [ManagedObject] = []
        objects.reserveCapacity(handover.count)
        func keep(_ object: ManagedObject?) {
            guard let object else { return }
            if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) || object is T {
                objects.append(object)
            }
        }
        var first = true
        while let batch = handover.batches.popLast() {
            if !first { await Task.yield() }
            first = false
            let detached = batch.compactMap(\.object)
            if detached.count == batch.count {
                for object in try context.adopt(detached) { keep(object) }
            } else if detached.isEmpty {
                for object in try context.existingObjects(with: batch.map(\.id)) { keep(object) }
            } else {
                let adopted = try context.adopt(detached)
                let read = try context.existingObjects(with: batch.filter { $0.object == nil }.map(\.id))
                let byID = Dictionary((adopted + read).map { ($0.objectID, $0) }) { first, _ in first }
                for handed in batch { keep(byID[handed.id]) }
            }
        }
        // Every object kept is a `T`, and an array of class references is laid out the same
        // whatever the class (as `ManagedObjectContext.fetch` takes its objects).
        return unsafeBitCast(objects, to: [T].self)
    }

    // MARK: The import

    /// Downloads every page, decodes it in a background context and saves; answers the
    /// objects' IDs (after the save) and the report. Runs off the caller's executor.
    private func run<T: ManagedObject & Decodable>(
        _ type: T.Type, many: Bool, path: String, container: PersistentContainer, _ options: FetchOptions,
        _ scope: SyncScope<T>?, parent: ImportParent? = nil
    ) async throws -> (HandOver, ImportReport) {
        let started = ContinuousClock.now
        defer { options.progress?.finish() }
        try configuration.checkHeaders(options, url: try url(for: path, options))
        let firstURL = try url(for: path, options)
        let (handedOver, reported) = try await withDeadline(url: firstURL, saving: options.saving) {
            var session = ImportSession<T>(
                client: self, container: container, options: options, many: many, scope: scope, parent: parent,
                firstURL: firstURL)
            try await session.run()
            return (session.handover, session.report)
        }
        var report = reported
        report.duration = ContinuousClock.now - started
        return (HandOver(handedOver, batch: Self.handoverBatch), report)
    }

    /// What `body` answers, unless `configuration.deadline` passes first: then it is
    /// cancelled (a cancelled import saves nothing more) and the call fails with `.timedOut`.
    /// An import that got through its save all the same answers as it is.
    private func withDeadline<Result: Sendable>(
        url: URL, saving: FetchOptions.Saving, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let deadline = configuration.deadline
        return try await withThrowingTaskGroup(of: DeadlineRace<Result>.self) { group in
            group.addTask { .finished(try await body()) }
            group.addTask {
                try await Task.sleep(for: deadline)
                return .deadlinePassed
            }
            defer { group.cancelAll() }
            switch await group.nextResult() {
            case .success(.finished(let value)): return value
            case .failure(let error): throw error
            case .success(.deadlinePassed), nil:
                group.cancelAll()
                if case .success(.finished(let value)) = await group.nextResult() { return value }
                throw RESTError(
                    .timedOut,
                    "the call took longer than its deadline of \(deadline) (RESTConfiguration.deadline); "
                        + (saving == .perPage ? "the pages saved before it stay" : "nothing was saved"), url: url)
            }
        }
    }

    /// `path` against the base URL, with the options' query items and the first page's.
    func url(for path: String, _ options: FetchOptions) throws -> URL {
        guard let resolved = URL(string: path, relativeTo: baseURL)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: true)
        else { throw RESTError(.invalidURL, "\"\(path)\" makes no URL against \(baseURL)", url: baseURL) }
        var items = options.query
        switch options.pagination {
        case .page(let parameter, let first): items.append(URLQueryItem(name: parameter, value: String(first)))
        case .offset(let parameter, let limitParameter, let limit):
            items.append(URLQueryItem(name: parameter, value: "0"))
            items.append(URLQueryItem(name: limitParameter, value: String(limit)))
        default: break
        }
        // The path's own query stays as written (its percent-encoding is the server's);
        // the options' items are encoded and added after it.
        if !items.isEmpty {
            var added = URLComponents()
            added.queryItems = items
            let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + (added.percentEncodedQuery ?? "")
        }
        guard let url = components.url else {
            throw RESTError(.invalidURL, "\"\(path)\" makes no URL against \(baseURL)", url: baseURL)
        }
        guard configuration.allows(url) else {
            throw RESTError(.schemeNotAllowed, "the scheme \(url.scheme ?? "(none)") is not allowed", url: url)
        }
        return url
    }

    // MARK: Requests

    /// The request for `url`: the client's headers, authorization, then the call's; without
    /// credentials (`credentialHeaders`) if `url` is not on `origin`, the origin of the call's
    /// first URL, as for a redirect: a page may name any URL as the next.
    func request(_ url: URL, _ options: FetchOptions, origin: URL) -> URLRequest {
        var request = URLRequest(url: url)
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        if let authorization = configuration.authorization {
            request.setValue(authorization.headerValue, forHTTPHeaderField: "Authorization")
        }
        for (name, value) in options.headers { request.setValue(value, forHTTPHeaderField: name) }
        if !url.hasSameOrigin(as: origin) { request.removeHeaders(configuration.allCredentialHeaders) }
        return request
    }

    /// Sends `request`, trying again as `RetryPolicy` says: a 2xx or 304 answer comes back;
    /// any other status, or a failure after the last try, throws. A push's writes go through
    /// a transport of their own (`writeTransport`) and count their retries (`onRetry`).
    func send(
        _ request: URLRequest, progress: AsyncStream<RESTProgress>.Continuation?,
        via writeTransport: HTTPTransport? = nil, onRetry: () -> Void = {}
    ) async throws -> (Data, HTTPURLResponse) {
        let policy = configuration.retry
        var waited: Duration = .zero
        var attempt = 0
        while true {
            attempt += 1
            var delay: Duration = .zero
            do {
                let (data, response) = try await (writeTransport ?? transport).send(request, progress: progress)
                let status = response.statusCode
                if (200..<300).contains(status) || status == 304 { return (data, response) }
                // A 3xx comes back when the transport had no redirect to follow.
                let unfollowed =
                    (300..<400).contains(status) && response.value(forHTTPHeaderField: "Location") == nil
                let error = RESTError(
                    .status,
                    (RESTError.summary(of: data) ?? HTTPURLResponse.localizedString(forStatusCode: status))
                        + (unfollowed ? ", with no Location to follow" : ""),
                    url: response.url ?? request.url, status: status, body: data,
                    retryAfter: status == 429 || status == 503 ? Self.retryAfter(response) : nil)
                guard status == 429 || status >= 500, attempt < policy.maximumAttempts else { throw error }
                delay =
                    status == 429 || status == 503
                    ? Self.retryAfter(response) ?? policy.backoff(after: attempt) : policy.backoff(after: attempt)
                guard waited + delay <= policy.maximumTotal else { throw error }
            } catch let error as RESTError where error.code == .transport || error.code == .timedOut {
                guard attempt < policy.maximumAttempts else { throw error }
                delay = policy.backoff(after: attempt)
                guard waited + delay <= policy.maximumTotal else { throw error }
            }
            waited += delay
            onRetry()
            try await Task.sleep(for: delay)
        }
    }

    /// `Retry-After` as a wait: seconds, or an HTTP date (RFC 9110).
    static func retryAfter(_ response: HTTPURLResponse) -> Duration? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSinceNow * 1_000)))
    }
}

/// Which of an import and its deadline ended first.
private enum DeadlineRace<Result: Sendable>: Sendable {
    case finished(Result)
    case deadlinePassed
}

/// Which local objects a sync may delete: those of the entity no page returned.
public enum SyncScope<T: ManagedObject>: Sendable {
    /// Every object of `T`.
    case all
    /// The objects of `T` the predicate matches (one feed's entries).
    case matching(Predicate<T>)
}

extension URLRequest {
    /// Takes out these headers, whatever the case of their names here or in the request.
    mutating func removeHeaders(_ names: Set<String>) {
        let lowercased = Set(names.map { $0.lowercased() })
        for name in (allHTTPHeaderFields ?? [:]).keys where lowercased.contains(name.lowercased()) {
            setValue(nil, forHTTPHeaderField: name)
        }
    }
}
