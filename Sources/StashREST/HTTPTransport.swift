import Foundation
import Stash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `URLSession` and the delegate that enforces a `RESTConfiguration`'s limits as bytes
/// arrive: the body size (cut off, not buffered to the end), the redirects (followed here,
/// counted, never https to http, only to allowed schemes), the idle timeout and the calling
/// task's cancellation.
///
/// FoundationNetworking on Linux traps ("Received callback for HTTP redirection, but we're not
/// waiting for it") when a task is cancelled or times out while the delegate decides on a
/// redirect. So the delegate never lets the session follow one (it answers at once, and the
/// 3xx comes back as the response), and a task is cancelled only once its response has come,
/// when no redirect can be pending; before that, the caller is answered at once and the task
/// is left to end, its bytes dropped.
final class HTTPTransport: NSObject, URLSessionDataDelegate, Sendable {
    private let configuration: RESTConfiguration
    private let transfers = Locked<[Int: Transfer]>([:])
    // Set once in `init`, before any task runs; the session is thread-safe.
    private let sessionBox = Locked<URLSession?>(nil)
    /// Where the idle timeouts' timers fire.
    private let timerQueue = DispatchQueue(label: "StashREST.timeouts")
    /// Where tasks are cancelled (see `cancel(_:)`).
    private let cancelQueue = DispatchQueue(label: "StashREST.cancel")
    /// Where tasks are made and started: `dataTask(with:)` and `resume()` wait for the
    /// session's work queue, and must not hold a thread of the cooperative pool meanwhile.
    private let startQueue = DispatchQueue(label: "StashREST.start")

    /// One exchange's task once made, and whether its caller was cancelled before then.
    private struct Start {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    /// What one task has received so far. A class, changed in place under the lock: as a
    /// struct taken out of the dictionary, each chunk appended copied the whole body so far
    /// (a 48 MB body took 13 s instead of 1.5, stash-bench REST import).
    private final class Transfer {
        /// Answered once: by the task's end, or earlier by a limit, a timeout or cancellation.
        private var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        let url: URL
        var data = Data()
        var response: HTTPURLResponse?
        /// Why the task is being stopped, when it is: the error the caller gets.
        var failure: (any Error)?
        let progress: AsyncStream<RESTProgress>.Continuation?
        /// When the last bytes (or the response) came: the idle timeout counts from here.
        var lastActivity = ContinuousClock.now

        init(
            continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>, url: URL,
            progress: AsyncStream<RESTProgress>.Continuation?
        ) {
            self.continuation = continuation
            self.url = url
            self.progress = progress
        }

        var isAnswered: Bool { continuation == nil }

        func answer(_ result: Result<(Data, HTTPURLResponse), any Error>) {
            continuation?.resume(with: result)
            continuation = nil
        }

        /// Stops the transfer with `error`, the caller's answer; its bytes are dropped.
        func fail(_ error: any Error) {
            failure = error
            data = Data()
            answer(.failure(error))
        }
    }

    init(configuration: RESTConfiguration, sessionConfiguration: URLSessionConfiguration) {
        self.configuration = configuration
        super.init()
        let seconds =
            Double(configuration.timeout.components.seconds)
            + Double(configuration.timeout.components.attoseconds) / 1e18
        // The session's own timeout backs the idle timeout up: it ends a task left to run
        // after its caller was answered. Whole seconds, as FoundationNetworking rounds down.
        // At most a year: FoundationNetworking overflows on more (it counts milliseconds in Int).
        sessionConfiguration.timeoutIntervalForRequest = min(max(1, seconds.rounded(.up)), 365 * 86_400)
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        let session = URLSession(configuration: sessionConfiguration, delegate: self, delegateQueue: nil)
        sessionBox.withLock { $0 = session }
    }

    private var session: URLSession { sessionBox.withLock { $0! } }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// The body and response of `request` after any redirects, whatever the status; limits
    /// and transport failures throw.
    func send(_ request: URLRequest, progress: AsyncStream<RESTProgress>.Continuation?) async throws -> (
        Data, HTTPURLResponse
    ) {
        var request = request
        var redirects = 0
        while true {
            let (data, response) = try await exchange(request, progress: progress)
            guard let next = try redirect(from: request, answered: response) else { return (data, response) }
            redirects += 1
            guard redirects <= configuration.maximumRedirects else {
                throw RESTError(
                    .tooManyRedirects, "more than \(configuration.maximumRedirects) redirects", url: request.url,
                    status: response.statusCode)
            }
            request = next
        }
    }

    /// The request a redirect `response` to `request` leads to, or `nil` when it is not a
    /// redirect to follow (no `Location`, or a status such as 300 or 304).
    private func redirect(from request: URLRequest, answered response: HTTPURLResponse) throws -> URLRequest? {
        let status = response.statusCode
        guard [301, 302, 303, 307, 308].contains(status),
            let location = response.value(forHTTPHeaderField: "Location"),
            let from = response.url ?? request.url
        else { return nil }
        guard let to = URL(string: location, relativeTo: from)?.absoluteURL else {
            throw RESTError(.invalidURL, "the redirect's Location \"\(location)\" is no URL", url: from, status: status)
        }
        try configuration.checkStep(from: from, to: to, "a redirect", status: status)
        var next = request
        next.url = to
        if status == 303 || (request.httpMethod == "POST" && (status == 301 || status == 302)) {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        // Credentials go to the origin they were given for, not to wherever it redirects.
        if !to.hasSameOrigin(as: from) { next.removeHeaders(configuration.allCredentialHeaders) }
        return next
    }

    /// One request and its answer, redirects not followed.
    private func exchange(_ request: URLRequest, progress: AsyncStream<RESTProgress>.Continuation?) async throws -> (
        Data, HTTPURLResponse
    ) {
        let url = request.url!
        let start = Locked(Start())
        // The idle timeout, kept here rather than left to the platform's URLSession, whose
        // timer did not always fire under load on Linux; on a dispatch timer of its own, so
        // that a busy cooperative thread pool cannot hold it up either.
        let watchdog = DispatchSource.makeTimerSource(queue: timerQueue)
        let period = min(configuration.timeout, .seconds(1))
        let interval = DispatchTimeInterval.milliseconds(
            max(1, Int(period.components.seconds * 1_000 + period.components.attoseconds / 1_000_000_000_000_000)))
        watchdog.schedule(deadline: .now() + interval, repeating: interval)
        watchdog.setEventHandler { [weak self] in
            guard let self else { return watchdog.cancel() }
            guard let task = start.withLock({ $0.task }) else { return }
            if timeOutIfIdle(task, url) { watchdog.cancel() }
        }
        watchdog.resume()
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                startQueue.async { [self] in
                    if start.withLock({ $0.cancelled }) { return continuation.resume(throwing: CancellationError()) }
                    let task = session.dataTask(with: request)
                    transfers.withLock {
                        $0[task.taskIdentifier] = Transfer(continuation: continuation, url: url, progress: progress)
                    }
                    let cancelled = start.withLock { start in
                        start.task = task
                        return start.cancelled
                    }
                    // Cancelled while the task was made: it never ran, so no redirect can be
                    // pending and it is cancelled at once (the session keeps a task it made
                    // until it ends, and would not invalidate).
                    if cancelled {
                        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
                        transfer?.answer(.failure(CancellationError()))
                        return cancel(task)
                    }
                    task.resume()
                }
            }
        } onCancel: {
            let task = start.withLock { start in
                start.cancelled = true
                return start.task
            }
            if let task { stop(task, because: CancellationError()) }
        }
    }

    /// Ends `task` with `error` (the first reason given wins). The caller is answered at
    /// once; the task is cancelled only if its response has come, as no redirect can be
    /// pending then (see the type's comment); otherwise it is cancelled when its response
    /// comes, or ends by the session's timeout.
    private func stop(_ task: URLSessionTask, because error: any Error) {
        let cancelNow = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[task.taskIdentifier], transfer.failure == nil else { return false }
            transfer.fail(error)
            return transfer.response != nil
        }
        if cancelNow { cancel(task) }
    }

    /// Cancels `task`, whose response has come, from a queue of its own: `cancel()` waits for
    /// the session's work queue, and called on the delegate's queue it held that queue while
    /// an endless body went on arriving, each chunk queued for the delegate (21 GB in 30 s).
    private func cancel(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    /// Stops `task` with `timedOut` if nothing came for longer than the timeout.
    private func timeOutIfIdle(_ task: URLSessionTask, _ url: URL) -> Bool {
        let idle = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[task.taskIdentifier], transfer.failure == nil else { return true }
            return ContinuousClock.now - transfer.lastActivity > configuration.timeout
        }
        if idle { stop(task, because: RESTError(.timedOut, "nothing came for \(configuration.timeout)", url: url)) }
        return idle
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[dataTask.taskIdentifier] else { return false }
            transfer.response = response as? HTTPURLResponse
            transfer.lastActivity = .now
            if transfer.failure == nil, response.expectedContentLength > configuration.maximumResponseSize {
                transfer.fail(tooLargeError(response.url ?? transfer.url))
            } else if response.expectedContentLength > 0 {
                transfer.data.reserveCapacity(Int(response.expectedContentLength))
            }
            return transfer.failure == nil
        }
        // FoundationNetworking ignores the disposition; a task stopped before its response
        // (or refused by its length) is cancelled here, now that no redirect can be pending.
        completionHandler(proceed ? .allow : .cancel)
        if !proceed { cancel(dataTask) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            transfer.data.append(data)
            transfer.lastActivity = .now
            if transfer.data.count > configuration.maximumResponseSize {
                transfer.fail(tooLargeError(transfer.response?.url ?? transfer.url))
                return true
            }
            let expected = transfer.response.map { $0.expectedContentLength >= 0 ? Int($0.expectedContentLength) : nil }
            transfer.progress?.yield(.bytes(received: transfer.data.count, expected: expected ?? nil))
            return false
        }
        if cancel { self.cancel(dataTask) }
    }

    /// Never followed by the session (see the type's comment): the 3xx is the answer, and
    /// `send` follows it.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            !transfer.isAnswered
        else { return }
        let url = transfer.response?.url ?? transfer.url
        if let error {
            let urlError = error as? URLError
            if urlError?.code == .cancelled {
                return transfer.answer(.failure(CancellationError()))
            }
            if urlError?.code == .timedOut {
                return transfer.answer(
                    .failure(
                        RESTError(.timedOut, "no answer within \(configuration.timeout)", url: url, underlying: error)))
            }
            return transfer.answer(
                .failure(
                    RESTError(
                        .transport, "the request failed: \(error.localizedDescription)", url: url,
                        status: transfer.response?.statusCode, underlying: error)))
        }
        // FoundationNetworking gives a 3xx without `Location` to no delegate method: it is
        // only the task's own response, and its body is not delivered.
        guard let response = transfer.response ?? task.response as? HTTPURLResponse else {
            return transfer.answer(.failure(RESTError(.transport, "no HTTP response", url: url)))
        }
        transfer.answer(.success((transfer.data, response)))
    }

    private func tooLargeError(_ url: URL) -> RESTError {
        RESTError(
            .tooLarge, "the body is longer than the limit of \(configuration.maximumResponseSize) bytes", url: url)
    }
}
