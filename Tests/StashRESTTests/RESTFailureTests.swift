import Foundation
import Stash
import StashREST
import Testing

/// Every failure names what and where, and stores nothing: statuses, retries, bad bodies,
/// limits, redirects, timeouts, cancellation.
@Suite struct RESTFailureTests {
    /// Fetches `path` expecting a `RESTError`; checks that the store and the context stayed empty.
    func failure(
        _ path: String, _ change: (inout RESTConfiguration) -> Void = { _ in }, server given: TestServer? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RESTError {
        let server: TestServer
        if let given { server = given } else { server = try await TestServer.start() }
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try store.container())
        let api = testClient(server, change)
        do {
            _ = try await api.fetch([Item].self, from: path, into: context)
        } catch let error as RESTError {
            #expect(try store.count("Item") == 0, sourceLocation: sourceLocation)
            #expect(!context.hasChanges, sourceLocation: sourceLocation)
            return error
        }
        Testing.Issue.record("\(path) did not fail", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    @Test func aClientErrorFailsAtOnceWithTheServersWords() async throws {
        let server = try await TestServer.start()
        let error = try await failure("status/422", server: server)
        #expect(error.code == .status)
        #expect(error.status == 422)
        #expect(error.url?.path.hasSuffix("/status/422") == true)
        #expect(error.message == "Validation Failed (title: missing_field)")
        #expect(error.body?.hasPrefix(#"{"message": "Validation Failed""#) == true)
        #expect(error.description.contains("HTTP 422 Validation Failed (title: missing_field)"))
        #expect(try await server.requests().count == 1)
        let missing = try await failure("status/404")
        #expect(missing.status == 404)
    }

    /// A 3xx without `Location` leads nowhere: it is the answer, an error status, not retried.
    @Test func aRedirectWithoutLocationFailsAtOnce() async throws {
        let server = try await TestServer.start()
        let error = try await failure("status/302", server: server)
        #expect(error.code == .status)
        #expect(error.status == 302)
        #expect(error.url?.path.hasSuffix("/status/302") == true)
        #expect(error.message == "Found, with no Location to follow")
        #expect(try await server.requests().count == 1)
    }

    @Test func serverErrorsAreRetriedThenSucceed() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let items = try await testClient(server).fetch([Item].self, from: "flaky/a?fail=2&count=3", into: context)
        #expect(items.count == 3)
        #expect(try store.count("Item") == 3)
        #expect(try await server.requests().count == 3)
        // Too many failures: the last status, after `maximumAttempts` tries.
        let error = try await failure("flaky/b?fail=9", { $0.retry.maximumAttempts = 3 }, server: server)
        #expect(error.status == 500)
        #expect(try await server.requests().filter { $0.path.hasPrefix("/flaky/b") }.count == 3)
    }

    @Test func retryAfterIsHonouredInSecondsAndAsADate() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        var start = ContinuousClock.now
        _ = try await api.fetch([Item].self, from: "limited/a?retry_after=1&count=2", into: context)
        #expect(ContinuousClock.now - start >= .milliseconds(950))
        start = ContinuousClock.now
        _ = try await api.fetch([Item].self, from: "unavailable/a?after=2&count=2", into: context)
        // An HTTP date has whole seconds: at least one of the two.
        #expect(ContinuousClock.now - start >= .milliseconds(950))
        #expect(try store.count("Item") == 2)
        // A wait longer than the policy allows in all fails at once.
        let error = try await failure(
            "limited/b?retry_after=30", { $0.retry.maximumTotal = .seconds(5) }, server: server)
        #expect(error.status == 429)
    }

    @Test func aDecodingErrorOnItem900Of1000SavesNothing() async throws {
        let error = try await failure("items?count=1000&bad=900")
        #expect(error.code == .decoding)
        #expect(error.message.contains("[899]"))
        #expect(error.message.contains("title"))
        #expect(error.underlying is StashError)
    }

    @Test func aTruncatedBody() async throws {
        let error = try await failure("truncated", { $0.retry = .none })
        #expect(error.code == .transport || error.code == .decoding)
    }

    @Test func aBodySlowerThanTheTimeout() async throws {
        let error = try await failure(
            "slow?delay=15",
            {
                $0.timeout = .seconds(1)
                $0.retry = .none
            })
        #expect(error.code == .timedOut)
    }

    @Test func aBodyThatIsNotJSON() async throws {
        let error = try await failure("html")
        #expect(error.code == .notJSON)
        #expect(error.status == 200)
        #expect(error.message.contains("text/html"))
        #expect(error.body?.contains("Not an API") == true)
    }

    @Test func anEndlessBodyIsCutOff() async throws {
        let server = try await TestServer.start()
        let error = try await failure("endless", { $0.maximumResponseSize = 1 << 20 }, server: server)
        #expect(error.code == .tooLarge)
        // The download stops too, not only the call: the server sees the client hang up.
        // (How soon depends on FoundationNetworking, whose cancel waits for its work queue,
        // which a body arriving over loopback at a gigabyte a second keeps busy.)
        var closed = false
        for _ in 0..<300 where !closed {
            closed = try await server.requests().contains { $0.path.hasPrefix("/endless-closed") }
            if !closed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(closed)
    }

    @Test func redirects() async throws {
        let server = try await TestServer.start()
        let loop = try await failure("redirect-loop", { $0.maximumRedirects = 5 }, server: server)
        #expect(loop.code == .tooManyRedirects)
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try store.container())
        let target = server.base.absoluteString + "items?count=2"
        let items = try await testClient(server).fetch(
            [Item].self, from: "redirect?to=" + queryValue(target),
            into: context)
        #expect(items.count == 2)
        #expect(try store.count("Item") == 2)
    }

    @Test func aRedirectToAnotherSchemeIsRefused() async throws {
        let error = try await failure("redirect?to=file%3A%2F%2F%2Fetc%2Fpasswd")
        #expect(error.code == .schemeNotAllowed)
        #expect(error.status == 302)
        #expect(error.url?.path.hasSuffix("/redirect") == true)
    }

    @Test func credentialsStayWithTheirOrigin() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server) {
            $0.authorization = .bearer("secret")
            $0.headers["x-api-key"] = "key"  // a default credential header, in another case
            $0.headers["X-Team-Token"] = "team"  // the API's own, named below
            $0.credentialHeaders.insert("x-team-token")
            $0.headers["X-Client"] = "not a credential"
        }
        let elsewhere = server.otherOrigin.absoluteString + "items?count=1"
        let sameOrigin = server.base.absoluteString + "items?count=2"
        for target in [elsewhere, sameOrigin] {
            _ = try await api.fetch(
                [Item].self,
                from: "redirect?to=" + queryValue(target),
                into: context)
        }
        let requests = try await server.requests()
        #expect(requests.map { $0.path.prefix { $0 != "?" } } == ["/redirect", "/items", "/redirect", "/items"])
        for (header, value) in [("authorization", "Bearer secret"), ("x-api-key", "key"), ("x-team-token", "team")] {
            #expect(requests.map { $0.headers[header] } == [value, nil, value, value], "\(header)")
        }
        #expect(requests.map { $0.headers["x-client"] } == Array(repeating: "not a credential", count: 4))
        #expect(try store.count("Item") == 2)
        // A set of credential headers given in place of the default still keeps these.
        let replaced = testClient(server) {
            $0.authorization = .bearer("secret")
            $0.credentialHeaders = ["X-Team-Token"]
        }
        _ = try await replaced.fetch([Item].self, from: "redirect?to=" + queryValue(elsewhere), into: context)
        #expect(try await server.requests().suffix(2).map { $0.headers["authorization"] } == ["Bearer secret", nil])
    }

    @Test func onlyAllowedSchemes() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        await #expect {
            _ = try await api.fetch([Item].self, from: "file:///etc/passwd", into: context)
        } throws: { error in
            (error as? RESTError)?.code == .schemeNotAllowed
        }
        #expect(try await server.requests().isEmpty)
        #expect(try store.count("Item") == 0)
    }

    /// Fetches `path` in a task and cancels it once the server has the request (not before
    /// it is sent); answers how the task ended, how long after the cancel, and the rows stored.
    func cancelWhileServing(_ path: String) async throws -> (Result<Void, any Error>, Duration, Int) {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let api = testClient(server)
        let task = Task {
            let context = ManagedObjectContext(container)
            _ = try await api.fetch([Item].self, from: path, into: context)
        }
        let route = "/" + path.prefix { $0 != "?" }
        var tries = 0
        while try await !server.requests().contains(where: { $0.path.hasPrefix(route) }), tries < 100 {
            tries += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        return (result, ContinuousClock.now - cancelled, try store.count("Item"))
    }

    @Test func cancellingTheTaskSavesNothing() async throws {
        // The server has sent the headers and holds the body back.
        let (result, _, stored) = try await cancelWhileServing("slow?delay=15")
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(stored == 0)
    }

    @Test func cancellingBeforeTheResponseAnswersAtOnce() async throws {
        // The server holds even the headers back.
        let (result, waited, stored) = try await cancelWhileServing("stall?delay=60&count=3")
        #expect(throws: CancellationError.self) { try result.get() }
        // Not after the server's 60 s: the call does not wait for the response to cancel. The
        // margin is wide because under ThreadSanitizer, with every suite running, a prompt
        // cancel has taken almost 6 s.
        #expect(waited < .seconds(30))
        #expect(stored == 0)
    }

    /// A call made by a task already cancelled sends nothing.
    @Test func aCancelledTaskSendsNoRequest() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let api = testClient(server)
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await api.fetch([Item].self, from: "items?count=3", into: ManagedObjectContext(container))
        }.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try store.count("Item") == 0)
        // A call after it, on the same client: the server has that one only.
        _ = try await api.fetch([Item].self, from: "items?count=1", into: ManagedObjectContext(container))
        #expect(try await server.requests().map(\.path) == ["/items?count=1"])
    }

    @Test func tooManyPagesSavesNothing() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.pageLimit = 2
        await #expect {
            _ = try await testClient(server).fetch(
                [Item].self, from: "items?count=10&per_page=3", into: context, options: options)
        } throws: { error in
            (error as? RESTError)?.code == .tooManyPages
        }
        // The third page is not asked for either, not even ahead of its turn.
        #expect(try await server.requests().count == 2)
        #expect(try store.count("Item") == 0)
    }
}
