import Foundation
import TestProcesses
import Testing

/// Runs the built `feeds` executable, for end-to-end tests: it sits beside the test bundle
/// (`.build/debug/feeds`), built by `swift build --build-tests`.
enum FeedsBinary {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static var url: URL? {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            beside.appendingPathComponent("feeds"),
            beside.deletingLastPathComponent().appendingPathComponent("feeds"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/feeds"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `feeds arguments...` to completion; stdout and stderr go through files, so a
    /// large output cannot fill a pipe and stall the child.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let binary = try #require(url, "the feeds binary was not built")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        var inherited = ProcessInfo.processInfo.environment
        inherited["FEEDS_STORE"] = folder.appendingPathComponent("feeds.sqlite").path
        let process = try ChildProcess(
            binary.path, arguments, environment: inherited.merging(environment) { $1 }, standardInput: .nullDevice,
            standardOutput: .file(out.path), standardError: .file(err.path))
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: out, encoding: .utf8),
            standardError: try String(contentsOf: err, encoding: .utf8))
    }
}

@Suite(.enabled(if: FeedsBinary.url != nil, "the feeds binary is built")) struct CommandLineBinaryTests {
    @Test func helpListsEveryCommandAndExitsZero() throws {
        let result = try FeedsBinary.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.contains("  bookmarks import  Import bookmarks"))
        #expect(
            try FeedsBinary.run(["--store", "/tmp/x.sqlite", "help", "opml", "export"]).standardOutput.hasPrefix(
                "Usage: feeds opml export [--store PATH]"))
    }

    @Test func aUsageErrorExitsTwoWithTheMessageOnStderr() throws {
        let result = try FeedsBinary.run(["entries", "--since", "soon"])
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("feeds: --since must be an ISO 8601 date or date-time"))
        #expect(result.standardError.contains("\nUsage: feeds entries [--unread]"))
    }
}
