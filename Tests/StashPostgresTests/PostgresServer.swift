import Foundation
import Stash
import TestProcesses

@testable import StashPostgres

/// The PostgreSQL server the tests use: the one `STASH_POSTGRES_URL` names (CI starts a
/// throwaway cluster and exports it), or else a throwaway cluster this test process starts
/// with `initdb` and `pg_ctl` (as the `postgres` user when run as root, since `initdb`
/// refuses root) and stops when it exits. Each test gets a database of its own.
enum PostgresServer {
    /// The server's URL (a `postgresql://` URI), or why there is none.
    static let base: Result<URLComponents, Unavailable> = start()

    /// Why the PostgreSQL tests cannot run; they are disabled with this as the reason.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static var isAvailable: Bool {
        if case .success = base { return true }
        return false
    }

    /// Creates a database of its own for a test and answers its URL.
    static func newDatabase(_ name: String = "test") throws -> String {
        var components = try base.get()
        let database = "\(name)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresConnection(components.string!)
        try admin.execute("CREATE DATABASE \(quotedName(database))")
        components.path = "/" + database
        return components.string!
    }

    private static func quotedName(_ name: String) -> String { "\"\(name)\"" }

    private static func start() -> Result<URLComponents, Unavailable> {
        if let url = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"] {
            guard let components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true else {
                return .failure(Unavailable(description: "STASH_POSTGRES_URL is not a postgresql:// URI: \(url)"))
            }
            return .success(components)
        }
        let candidates = ["/usr/lib/postgresql/15/bin", "/usr/local/bin", "/usr/bin"]
        guard let bin = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") })
        else {
            return .failure(
                Unavailable(
                    description: "no STASH_POSTGRES_URL and no initdb (apt-get install postgresql): "
                        + "the PostgreSQL tests need a server"))
        }
        do {
            return .success(try Cluster.start(bin: bin))
        } catch {
            return .failure(Unavailable(description: "could not start a throwaway PostgreSQL cluster: \(error)"))
        }
    }
}

/// A throwaway cluster in a temporary directory, its socket there too, no TCP.
enum Cluster {
    /// The data directory and the tools, for the exit handler.
    private static let running = Locked<(directory: String, bin: String)?>(nil)

    static func start(bin: String) throws -> URLComponents {
        let directory = NSTemporaryDirectory() + "stash-pg-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asRoot = geteuid() == 0
        if asRoot, let user = getpwnam("postgres") {
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let data = directory + "/data"
        let user = asRoot ? "postgres" : String(cString: getpwuid(geteuid()).pointee.pw_name)
        try run(asRoot, bin + "/initdb", ["--no-sync", "--auth=trust", "--username=\(user)", "-D", data], directory)
        try run(
            asRoot, bin + "/pg_ctl",
            [
                "-w", "-D", data, "-l", directory + "/server.log", "-o",
                "-c listen_addresses= -p 5432 -k \(directory) -c fsync=off",
                "start",
            ], directory)
        running.withLock { $0 = (directory, bin) }
        atexit {
            guard let (directory, bin) = Cluster.running.withLock({ $0 }) else { return }
            try? Cluster.run(
                geteuid() == 0, bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "stop"], directory)
            try? FileManager.default.removeItem(atPath: directory)
        }
        var components = URLComponents()
        components.scheme = "postgresql"
        components.host = ""
        components.path = "/postgres"
        components.queryItems = [
            URLQueryItem(name: "host", value: directory), URLQueryItem(name: "port", value: "5432"),
            URLQueryItem(name: "user", value: user),
        ]
        return components
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when this process is root.
    static func run(_ asRoot: Bool, _ tool: String, _ arguments: [String], _ directory: String) throws {
        let log = directory + "/tool.log"
        let process =
            asRoot
            ? try ChildProcess(
                "runuser", ["-u", "postgres", "--", tool] + arguments, standardInput: .nullDevice,
                standardOutput: .file(log), standardError: .standardOutput)
            : try ChildProcess(
                tool, arguments, standardInput: .nullDevice, standardOutput: .file(log),
                standardError: .standardOutput)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgresServer.Unavailable(
                description: "\(tool) exited with \(process.terminationStatus): \(output.suffix(800))")
        }
    }
}
