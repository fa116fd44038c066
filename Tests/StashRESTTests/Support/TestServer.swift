import Foundation
import TestProcesses

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test HTTP server (`Server/server.py`) on 127.0.0.1, as one test sees it: the server
/// process is started once and shared (each test its own path prefix, `/t/<id>/`, so its
/// requests and counters are its own); it ends with the test process.
///
/// One process rather than one per test: starting and killing a child per test while Swift
/// Testing's exit tests wait for their own children stalled whole runs.
struct TestServer: Sendable {
    let base: URL
    /// The same server and prefix on its second port: another origin.
    let otherOrigin: URL

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    /// Whether the real-world fixtures sit beside the checkout.
    static var fixturesAvailable: Bool {
        FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("README.md").path)
    }

    /// A fresh view of the shared server, starting it the first time.
    static func start() async throws -> TestServer {
        let (port, otherPort) = try await SharedServer.instance.ports()
        let prefix = "/t/\(UUID().uuidString)/"
        return TestServer(
            base: URL(string: "http://127.0.0.1:\(port)\(prefix)")!,
            otherOrigin: URL(string: "http://127.0.0.1:\(otherPort)\(prefix)")!)
    }

    /// What this test asked the server so far: each request's path (without the prefix) and
    /// headers (names lowercased).
    func requests() async throws -> [(path: String, headers: [String: String])] {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("requests"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return list.map { ($0["path"] as? String ?? "", $0["headers"] as? [String: String] ?? [:]) }
    }

    /// Asks the server for `path` (query and all) outside any client under test: a test's
    /// change to what it serves.
    func get(_ path: String) async throws {
        _ = try await URLSession.shared.data(from: URL(string: base.absoluteString + path)!)
    }

    enum ServerError: Error { case didNotStart }
}

/// The one server process, started on first use.
private actor SharedServer {
    static let instance = SharedServer()
    private var started: Task<(Int, Int), any Error>?

    func ports() async throws -> (Int, Int) {
        if let started { return try await started.value }
        let task = Task { try await Self.launch() }
        started = task
        return try await task.value
    }

    private static func launch() async throws -> (Int, Int) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Server/server.py")
        var environment = ProcessInfo.processInfo.environment
        environment["STASH_FIXTURES"] = TestServer.fixtures.path
        // Nothing of the test process's own: the runner waits for its output to close.
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", script.path], environment: environment, standardInput: .nullDevice,
            standardOutput: .pipe, standardError: .nullDevice)
        let reader = process.standardOutputReader!
        // Read on a thread of its own: a blocking read would hold a thread of the
        // cooperative pool, which the tests need.
        let line = await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    line.append(chunk)
                }
                continuation.resume(returning: line)
            }.start()
        }
        let ports = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard ports.count == 2 else { throw TestServer.ServerError.didNotStart }
        return (ports[0], ports[1])
    }
}
