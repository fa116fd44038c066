import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test HTTP server (`Server/server.py`) on 127.0.0.1, started for one test and stopped
/// when it goes.
final class TestServer: Sendable {
    private let process: Process
    let port: Int
    let base: URL

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    /// Whether the real-world fixtures sit beside the checkout.
    static var fixturesAvailable: Bool {
        FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("README.md").path)
    }

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
        self.base = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// Starts a server and waits for its port on a thread of its own: a blocking read here
    /// would hold one of the few threads of the cooperative pool, which the clients under
    /// test (and the other tests) need.
    static func start() async throws -> TestServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Server/server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        var environment = ProcessInfo.processInfo.environment
        environment["STASH_FIXTURES"] = fixtures.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        // Nothing of the test process's own: a server that outlived it must not hold its
        // output open (the test runner waits for that to close).
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
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
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw ServerError.didNotStart
        }
        return TestServer(process: process, port: port)
    }

    deinit {
        // `waitUntilExit` spins a run loop, which never turns on a task's thread: the
        // process is reaped directly (or already was, by Foundation: then ECHILD at once).
        // SIGKILL: the child of `Process` may be started with SIGTERM blocked.
        let pid = process.processIdentifier
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// What the server was asked so far: each request's path and headers (names lowercased).
    /// Asynchronous: a blocking read here would hold one of the few threads of the
    /// cooperative pool, which the clients under test need.
    func requests() async throws -> [(path: String, headers: [String: String])] {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("requests"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return list.map { ($0["path"] as? String ?? "", $0["headers"] as? [String: String] ?? [:]) }
    }

    enum ServerError: Error { case didNotStart }
}
