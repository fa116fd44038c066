import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RESTClient {
    /// One GET of `path` (against the base URL, or absolute) whose body is answered as
    /// bytes: for documents that are not JSON models, such as RSS or Atom feeds and web
    /// pages. The client's limits, retries (`Retry-After` included), redirects and deadline
    /// apply as for `fetch`; the content type is not checked. With `validators`, the request
    /// is conditional and a 304 comes back as `notModified` with an empty body.
    ///
    /// Throws `RESTError`: a status other than 2xx and 304 after the retries (its
    /// `retryAfter` says how long the server asked to wait, if it did), the transport, the
    /// deadline.
    public func get(
        _ path: String, validators: HTTPValidators? = nil, options: FetchOptions = FetchOptions()
    ) async throws -> RESTResponse {
        let url = try url(for: path, options)
        try configuration.checkHeaders(options, url: url)
        var request = request(url, options, origin: url)
        if let validators {
            if let etag = validators.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = validators.lastModified {
                request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
        }
        let sent = request
        let deadline = configuration.deadline
        let (data, response) = try await withThrowingTaskGroup(of: (Data, HTTPURLResponse)?.self) { group in
            group.addTask { try await self.send(sent, progress: options.progress) }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else {
                throw RESTError(
                    .timedOut, "the call took longer than its deadline of \(deadline) (RESTConfiguration.deadline)",
                    url: url)
            }
            return answer
        }
        options.progress?.finish()
        if response.statusCode == 304 && (validators?.isEmpty ?? true) {
            throw RESTError(
                .unexpectedNotModified, "a 304 Not Modified to a request that sent no validators",
                url: response.url ?? url, status: 304)
        }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields { headers[name] = value }
        let answered = HTTPValidators(
            etag: response.value(forHTTPHeaderField: "ETag"),
            lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        let kept =
            response.statusCode == 304
            ? HTTPValidators(
                etag: answered.etag ?? validators?.etag, lastModified: answered.lastModified ?? validators?.lastModified
            )
            : answered
        return RESTResponse(
            url: response.url ?? url, status: response.statusCode, body: response.statusCode == 304 ? Data() : data,
            contentType: response.value(forHTTPHeaderField: "Content-Type"), validators: kept, headers: headers)
    }
}
