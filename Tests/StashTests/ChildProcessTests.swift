import Foundation
import TestProcesses
import Testing

/// The posix_spawn child processes the tests use instead of Foundation's `Process`.
@Suite struct ChildProcessTests {
    @Test func theOutputIsReadToTheEndAndTheExitStatusKept() throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "printf 'one\\ntwo\\n'; exit 3"], standardInput: .nullDevice, standardOutput: .pipe)
        let output = try #require(child.standardOutputReader).readDataToEndOfFile()
        #expect(String(decoding: output, as: UTF8.self) == "one\ntwo\n")
        child.waitUntilExit()
        #expect(!child.isRunning)
        #expect(child.terminationReason == .exit)
        #expect(child.terminationStatus == 3)
    }

    @Test func moreOutputThanAPipeHoldsDoesNotStall() throws {
        let child = try ChildProcess("/usr/bin/env", ["head", "-c", "1000000", "/dev/zero"], standardOutput: .pipe)
        #expect(try #require(child.standardOutputReader).readDataToEndOfFile().count == 1_000_000)
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
    }

    @Test func standardErrorMergedIntoStandardOutputAndTheEnvironmentGiven() throws {
        let child = try ChildProcess(
            "sh", ["-c", "echo \"$GREETING\"; echo oops >&2"],
            environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"],
            standardOutput: .pipe, standardError: .standardOutput)
        let output = try #require(child.standardOutputReader).readDataToEndOfFile()
        child.waitUntilExit()
        #expect(String(decoding: output, as: UTF8.self) == "hello\noops\n")
    }

    @Test func aKilledChildReportsTheSignal() throws {
        let child = try ChildProcess("/usr/bin/env", ["sleep", "30"], standardOutput: .nullDevice)
        #expect(child.isRunning)
        child.kill()
        child.waitUntilExit()
        #expect(!child.isRunning)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)

        let terminated = try ChildProcess("/usr/bin/env", ["sleep", "30"])
        terminated.terminate()
        terminated.waitUntilExit()
        #expect(terminated.terminationReason == .uncaughtSignal)
        #expect(terminated.terminationStatus == SIGTERM)
    }

    @Test func whatIsWrittenToStandardInputComesBack() throws {
        let child = try ChildProcess("/usr/bin/env", ["cat"], standardInput: .pipe, standardOutput: .pipe)
        let writer = try #require(child.standardInputWriter)
        writer.write(Data("round\ntrip\n".utf8))
        try writer.close()
        let output = try #require(child.standardOutputReader).readDataToEndOfFile()
        child.waitUntilExit()
        #expect(String(decoding: output, as: UTF8.self) == "round\ntrip\n")
        #expect(child.terminationStatus == 0)
    }

    @Test func outputGoesToAFileAndOnlyTheStandardDescriptorsAreInherited() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // A descriptor of this process that is not close-on-exec: the child must not have it.
        let open = Glibc.open("/dev/null", O_RDONLY)
        defer { close(open) }
        let child = try ChildProcess(
            "/bin/sh", ["-c", "ls /proc/self/fd; if test -e /proc/self/fd/\(open); then echo inherited; fi"],
            standardOutput: .file(file.path), standardError: .nullDevice)
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        // 0, 1, 2 and the directory ls reads.
        let listed = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(!listed.contains("inherited"))
        #expect(listed.count <= 4, "\(listed)")
    }

    @Test func aProgramThatDoesNotExistThrows() {
        #expect(throws: ChildProcess.SpawnError.self) {
            _ = try ChildProcess("/nonexistent/program", [])
        }
    }
}
