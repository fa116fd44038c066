import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `URLSession` and the delegate that enforces a `RESTConfiguration`'s limits as bytes
/// arrive: the body size (cut off, not buffered to the end), the redirects (counted, never
/// https to http, only allowed schemes), and cancellation of the calling task.
final class HTTPTransport: NSObject, URLSessionDataDelegate, Sendable {
    private let configuration: RESTConfiguration
    private let transfers = Guarded<[Int: Transfer]>([:])
    // Set once in `init`, before any task runs; the session is thread-safe.
    private let sessionBox = Guarded<URLSession?>(nil)
    /// Where the idle timeouts' timers fire.
    private let timerQueue = DispatchQueue(label: "StashREST.timeouts")

    /// What one task has received so far. A class, changed in place under the lock: as a
    /// struct taken out of the dictionary, each chunk appended copied the whole body so far
    /// (a 48 MB body took 13 s instead of 1.5, stash-bench REST import).
    private final class Transfer {
        let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
        let originalURL: URL
        var data = Data()
        var response: HTTPURLResponse?
        var redirects = 0
        /// A limit the delegate enforced: the error the task ends with.
        var failure: RESTError?
        let progress: AsyncStream<RESTProgress>.Continuation?
        /// When the last bytes (or the response) came: the idle timeout counts from here.
        var lastActivity = ContinuousClock.now

        init(
            continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>, originalURL: URL,
            progress: AsyncStream<RESTProgress>.Continuation?
        ) {
            self.continuation = continuation
            self.originalURL = originalURL
            self.progress = progress
        }
    }

    init(configuration: RESTConfiguration, sessionConfiguration: URLSessionConfiguration) {
        self.configuration = configuration
        super.init()
        let seconds =
            Double(configuration.timeout.components.seconds)
            + Double(configuration.timeout.components.attoseconds) / 1e18
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        let session = URLSession(configuration: sessionConfiguration, delegate: self, delegateQueue: nil)
        sessionBox.withLock { $0 = session }
    }

    private var session: URLSession { sessionBox.withLock { $0! } }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// The body and response of `request`, whatever the status; limits and transport
    /// failures throw.
    func send(_ request: URLRequest, progress: AsyncStream<RESTProgress>.Continuation?) async throws -> (
        Data, HTTPURLResponse
    ) {
        let url = request.url!
        let task = session.dataTask(with: request)
        // The idle timeout, kept here rather than left to the platform's URLSession, whose
        // timer did not always fire under load on Linux; on a dispatch timer of its own, so
        // that a busy cooperative thread pool cannot hold it up either.
        let watchdog = DispatchSource.makeTimerSource(queue: timerQueue)
        let period = min(configuration.timeout, .seconds(1))
        let interval = DispatchTimeInterval.milliseconds(
            Int(period.components.seconds * 1_000 + period.components.attoseconds / 1_000_000_000_000_000))
        watchdog.schedule(deadline: .now() + interval, repeating: interval)
        watchdog.setEventHandler { [weak self] in
            if self?.timeOutIfIdle(task, url) ?? true { watchdog.cancel() }
        }
        watchdog.resume()
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfers.withLock {
                    $0[task.taskIdentifier] = Transfer(continuation: continuation, originalURL: url, progress: progress)
                }
                if Task.isCancelled { task.cancel() }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Fails `task` with `timedOut` if nothing came for longer than the timeout.
    private func timeOutIfIdle(_ task: URLSessionDataTask, _ url: URL) -> Bool {
        let idle = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[task.taskIdentifier], transfer.failure == nil else { return false }
            guard ContinuousClock.now - transfer.lastActivity > configuration.timeout else { return false }
            transfer.failure = RESTError(.timedOut, "nothing came for \(configuration.timeout)", url: url)
            return true
        }
        // Cancelled where the delegate's callbacks run, so never in the middle of one
        // (FoundationNetworking traps on a redirect callback for a task cancelled meanwhile).
        if idle { session.delegateQueue.addOperation { task.cancel() } }
        return idle
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[dataTask.taskIdentifier] else { return false }
            transfer.response = response as? HTTPURLResponse
            transfer.lastActivity = .now
            if response.expectedContentLength > configuration.maximumResponseSize {
                transfer.failure = tooLargeError(response.url ?? transfer.originalURL)
            } else if response.expectedContentLength > 0 {
                transfer.data.reserveCapacity(Int(response.expectedContentLength))
            }
            return transfer.failure != nil
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            transfer.data.append(data)
            transfer.lastActivity = .now
            if transfer.data.count > configuration.maximumResponseSize {
                transfer.failure = tooLargeError(transfer.response?.url ?? transfer.originalURL)
                transfer.data = Data()
            }
            let expected = transfer.response.map { $0.expectedContentLength >= 0 ? Int($0.expectedContentLength) : nil }
            transfer.progress?.yield(.bytes(received: transfer.data.count, expected: expected ?? nil))
            return transfer.failure != nil
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let failure = transfers.withLock { transfers -> RESTError? in
            guard let transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.redirects += 1
            transfer.lastActivity = .now
            let from = response.url ?? transfer.originalURL
            let to = request.url
            if transfer.redirects > configuration.maximumRedirects {
                transfer.failure = RESTError(
                    .tooManyRedirects, "more than \(configuration.maximumRedirects) redirects",
                    url: transfer.originalURL,
                    status: response.statusCode)
            } else if from.scheme?.lowercased() == "https", to?.scheme?.lowercased() == "http" {
                transfer.failure = RESTError(
                    .insecureRedirect, "a redirect from https to http (\(to?.absoluteString ?? "?")) is not followed",
                    url: from, status: response.statusCode)
            } else if let scheme = to?.scheme?.lowercased(), !configuration.allowedSchemes.contains(scheme) {
                transfer.failure = RESTError(
                    .schemeNotAllowed, "a redirect to the scheme \(scheme) is not allowed", url: from,
                    status: response.statusCode)
            }
            return transfer.failure
        }
        // Refused: the task goes on to a URL no protocol serves and fails at once, with
        // `failure` reported. Not `nil` (the documented way to stop at the redirect):
        // FoundationNetworking on Linux sometimes traps on it ("Received callback for HTTP
        // redirection, but we're not waiting for it", seen in CI).
        completionHandler(failure == nil ? request : URLRequest(url: Self.refusedRedirect))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = transfer.response?.url ?? transfer.originalURL
        if let failure = transfer.failure {
            return transfer.continuation.resume(throwing: failure)
        }
        if let error {
            let urlError = error as? URLError
            if urlError?.code == .cancelled {
                return transfer.continuation.resume(throwing: CancellationError())
            }
            if urlError?.code == .timedOut {
                return transfer.continuation.resume(
                    throwing: RESTError(
                        .timedOut, "no answer within \(configuration.timeout)", url: url, underlying: error))
            }
            return transfer.continuation.resume(
                throwing: RESTError(
                    .transport, "the request failed: \(error.localizedDescription)", url: url,
                    status: transfer.response?.statusCode, underlying: error))
        }
        guard let response = transfer.response else {
            return transfer.continuation.resume(throwing: RESTError(.transport, "no HTTP response", url: url))
        }
        transfer.continuation.resume(returning: (transfer.data, response))
    }

    /// Where a refused redirect is sent instead: a scheme URLSession cannot load.
    private static let refusedRedirect = URL(string: "stash-refused-redirect:nowhere")!

    private func tooLargeError(_ url: URL) -> RESTError {
        RESTError(
            .tooLarge, "the body is longer than the limit of \(configuration.maximumResponseSize) bytes", url: url)
    }
}
