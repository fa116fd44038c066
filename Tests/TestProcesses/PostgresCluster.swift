import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL server the tests use, one per test process, shared by every test target:
/// the one `STASH_POSTGRES_URL` names (CI starts a throwaway cluster and exports it), or else
/// a throwaway cluster this process starts with `initdb` and `pg_ctl` (as the `postgres`
/// user when run as root, since `initdb` refuses root) and stops when it exits. It needs no
/// Stash: each test target makes its databases with its own connection.
public enum PostgresCluster {
    /// The server's URL (a `postgresql://` URI naming its `postgres` database), or why there
    /// is none.
    public static var base: Result<URLComponents, Unavailable> { started.map(\.components) }

    /// Why the PostgreSQL runs cannot happen; the tests needing them are disabled with this
    /// as the reason.
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static var isAvailable: Bool {
        if case .success = started { return true }
        return false
    }

    /// Why there is no server, for a disabled test's reason; empty when there is one.
    public static var unavailableReason: String {
        if case .failure(let unavailable) = started { return unavailable.description }
        return ""
    }

    /// The server, and for a cluster of our own its directory and tools (for the exit
    /// handler, which cannot capture).
    private struct Started: Sendable {
        let components: URLComponents
        let ownCluster: (directory: String, bin: String)?
    }

    private static let started: Result<Started, Unavailable> = start()

    private static func start() -> Result<Started, Unavailable> {
        if let url = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"] {
            guard let components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true else {
                return .failure(Unavailable(description: "STASH_POSTGRES_URL is not a postgresql:// URI: \(url)"))
            }
            return .success(Started(components: components, ownCluster: nil))
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
            return .success(try startCluster(bin: bin))
        } catch {
            return .failure(Unavailable(description: "could not start a throwaway PostgreSQL cluster: \(error)"))
        }
    }

    /// A throwaway cluster in a temporary directory, its socket there too, no TCP.
    private static func startCluster(bin: String) throws -> Started {
        let directory = NSTemporaryDirectory() + "stash-pg-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asRoot = geteuid() == 0
        if asRoot, let user = getpwnam("postgres") {
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let data = directory + "/data"
        let user = asRoot ? "postgres" : String(cString: getpwuid(geteuid()).pointee.pw_name)
        try run(asRoot, bin + "/initdb", ["--no-sync", "--auth=trust", "--username=\(user)", "-D", data], directory)
        // Every test of the run may hold a container's connections at once.
        try run(
            asRoot, bin + "/pg_ctl",
            [
                "-w", "-D", data, "-l", directory + "/server.log", "-o",
                "-c listen_addresses= -p 5432 -k \(directory) -c fsync=off -c max_connections=1000",
                "start",
            ], directory)
        atexit {
            guard case .success(let started) = PostgresCluster.started, let (directory, bin) = started.ownCluster
            else { return }
            try? PostgresCluster.run(
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
        return Started(components: components, ownCluster: (directory, bin))
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when this process is root.
    private static func run(_ asRoot: Bool, _ tool: String, _ arguments: [String], _ directory: String) throws {
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
            throw Unavailable(description: "\(tool) exited with \(process.terminationStatus): \(output.suffix(800))")
        }
    }
}
