import Foundation
import TestProcesses

/// Another process, python3's sqlite3 module, that holds a write transaction on a store
/// file (`BEGIN IMMEDIATE` and one insert, not committed) until `release()`.
final class LockHolder {
    private let process: ChildProcess

    /// Starts the process and returns once it holds the lock. `sql` runs inside the
    /// transaction, after `BEGIN IMMEDIATE`.
    init(file: URL, sql: String = "") throws {
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            if sys.argv[2]:
                connection.execute(sys.argv[2])
            print("locked", flush=True)
            sys.stdin.read()
            connection.execute("ROLLBACK")
            """
        process = try ChildProcess(
            "/usr/bin/env", ["python3", "-c", script, file.path, sql], standardInput: .pipe, standardOutput: .pipe)
        let line = process.standardOutputReader!.readLine()
        guard line == "locked" else {
            process.terminate()
            throw CocoaError(
                .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "lock holder said \(line ?? "nothing")"])
        }
    }

    /// Rolls the transaction back and waits for the process to end.
    func release() {
        try? process.standardInputWriter?.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { release() }
    }
}

extension FileHandle {
    /// One line of text, without its newline, or `nil` at the end of the stream.
    fileprivate func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = readData(ofLength: 1)
            guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}
