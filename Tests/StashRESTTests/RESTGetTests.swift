import Foundation
import Stash
import StashREST
import Testing

/// `RESTClient.get`: one document as bytes (a feed, a page), with the client's validators,
/// retries, limits and authorization, for bodies that are not JSON models.
@Suite struct RESTGetTests {
    @Test func aGetAnswersTheBytesAndAConditionalOneA304() async throws {
        let server = try await TestServer.start()
        let api = testClient(server)
        let first = try await api.get("items?count=2&etag=1")
        #expect(first.status == 200 && !first.notModified)
        #expect(
            first.validators == HTTPValidators(etag: #""items-1-2""#, lastModified: "Wed, 21 Oct 2026 07:28:00 GMT"))
        #expect(first.contentType?.hasPrefix("application/json") == true)
        #expect(first.header("etag") == #""items-1-2""#)
        let items = try JSONSerialization.jsonObject(with: first.body) as? [[String: Any]]
        #expect(items?.compactMap { $0["id"] as? Int } == [1, 2])

        let second = try await api.get("items?count=2&etag=1", validators: first.validators)
        #expect(second.notModified && second.status == 304 && second.body.isEmpty)
        // What to send next time stays what was sent when the 304 leaves a validator out.
        #expect(second.validators.etag == #""items-1-2""#)
        let sent = try await server.requests().map { $0.headers["if-none-match"] }
        #expect(sent == [nil, #""items-1-2""#])
        #expect(try await server.requests().last?.headers["if-modified-since"] == "Wed, 21 Oct 2026 07:28:00 GMT")
    }

    @Test func aStatusErrorSaysTheURLAndHowLongTheServerAskedToWait() async throws {
        let server = try await TestServer.start()
        let api = testClient(server) { $0.retry = .none }
        do {
            _ = try await api.get("limited/a?count=1&retry_after=7")
            Testing.Issue.record("a 429 was answered")
        } catch let error as RESTError {
            #expect(error.code == .status && error.status == 429)
            #expect(error.retryAfter == .seconds(7))
            #expect(error.url?.absoluteString.hasSuffix("limited/a?count=1&retry_after=7") == true)
        }
        do {
            _ = try await api.get("status/404")
            Testing.Issue.record("a 404 was answered")
        } catch let error as RESTError {
            #expect(error.status == 404 && error.retryAfter == nil)
        }
        // With retries, the second answer (a 200) comes back after the asked wait of 1 s.
        let retried = try await testClient(server).get("limited/b?count=1&retry_after=1")
        #expect(retried.status == 200)
    }

    @Test func aTokenIsSentAsTheTokenScheme() async throws {
        let server = try await TestServer.start()
        let api = testClient(server) { $0.authorization = .token("s3cret") }
        _ = try await api.get("items?count=1")
        #expect(try await server.requests().first?.headers["authorization"] == "Token s3cret")
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        let server = try await TestServer.start()
        let api = testClient(server) { $0.maximumResponseSize = 100 }
        await #expect(throws: RESTError.self) { _ = try await api.get("items?count=50") }
    }
}
