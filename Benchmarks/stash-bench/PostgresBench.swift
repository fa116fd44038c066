import CLibPQ
import Foundation
import Stash
import StashPostgres

/// `stash-bench --store postgres`: Stash on PostgreSQL against hand-written libpq on the
/// same generated payload, in one run: import (decode + save), re-import (upsert), fetch all.
/// Each iteration makes fresh databases beside the one the URL names.
struct PostgresBench {
    let records: Int
    let iterations: Int
    var components: URLComponents
    let admin: OpaquePointer
    var databaseCount = 0
    var rows: [(label: String, stash: [Double], baseline: [Double])] = []

    init(records: Int, iterations: Int, url: String) throws {
        guard let components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true else {
            throw BenchError("--url needs a postgresql:// URI, not \(url)")
        }
        self.records = records
        self.iterations = iterations
        self.components = components
        admin = PostgresBaseline.connect(url)
    }

    /// The payload: `records` posts, every tenth title edited in the second.
    func payload(edited: Bool) -> Data {
        let posts = (0..<records).map { id -> [String: Any] in
            [
                "id": id, "title": "Title \(id)\(edited && id % 10 == 0 ? " (edited)" : "")",
                "body": String(repeating: "Body of post \(id). ", count: 8), "score": Double(id % 1000) / 10,
                "read": id % 3 == 0, "publishedAt": "2024-05-\(String(format: "%02d", id % 28 + 1))T09:30:00Z",
            ]
        }
        return try! JSONSerialization.data(withJSONObject: posts)
    }

    mutating func newDatabase() -> String {
        databaseCount += 1
        let name = "bench_\(getpid())_\(databaseCount)"
        PQclear(PostgresBaseline.exec(admin, "CREATE DATABASE \(name)"))
        components.path = "/" + name
        return components.string!
    }

    /// Through `context.decode` (Stash's byte-level reader), then one save.
    func stashImport(_ container: PersistentContainer, _ data: Data) throws -> (decode: Double, write: Double) {
        let context = ManagedObjectContext(container)
        let start = Date()
        _ = try context.decode([Post].self, from: data, using: PostgresBaseline.decoder())
        let decoded = Date()
        try context.save()
        return (decoded.timeIntervalSince(start), Date().timeIntervalSince(decoded))
    }

    /// The fetch is timed with the objects still held, as the baselines time theirs with the
    /// structs still held; letting them go (and the context, which they keep) is timed apart
    /// (`drop`), on both sides. (Before
    /// 2026-12-05 the objects were released inside the fetch's time: Swift ends `posts`'s
    /// lifetime at its last use, before the clock stopped, and the baselines' structs outlived
    /// their clocks.)
    @inline(never) func stashFetch(_ container: PersistentContainer) throws -> (
        seconds: Double, checksum: Int, drop: Double
    ) {
        let context = ManagedObjectContext(container)
        let start = Date()
        let posts = try context.fetch(FetchDescriptor<Post>())
        var checksum = 0
        for post in posts {
            checksum = checksum &+ post.id &+ post.title.utf8.count
            _ = (post.body, post.score, post.read, post.publishedAt)
        }
        let seconds = withExtendedLifetime(posts) { Date().timeIntervalSince(start) }
        return (seconds, checksum, timeToRelease((consume context, consume posts)))
    }

    mutating func record(_ label: String, _ stash: Double, _ baseline: Double) {
        if let index = rows.firstIndex(where: { $0.label == label }) {
            rows[index].stash.append(stash)
            rows[index].baseline.append(baseline)
        } else {
            rows.append((label, [stash], [baseline]))
        }
    }

    mutating func run() throws {
        let first = payload(edited: false)
        let second = payload(edited: true)
        print(
            "stash-bench --store postgres: \(records) records, \(first.count / 1_000_000) MB JSON, "
                + "\(iterations) iterations, medians")
        for _ in 0..<iterations {
            let stashURL = newDatabase()
            let imported = try stashImport(try PersistentContainer(for: Post.self, store: .postgres(stashURL)), first)
            let copyURL = newDatabase()
            let copied = PostgresBaseline.copy(copyURL, first)
            let pipeURL = newDatabase()
            let piped = PostgresBaseline.upsert(pipeURL, first, create: true)
            record("import: JSON decode", imported.decode, copied.decode)
            record("import: write vs COPY", imported.write, copied.write)
            record("import: write vs pipelined INSERT", imported.write, piped.write)
            let reimported = try stashImport(
                try PersistentContainer(for: Post.self, store: .postgres(stashURL)), second)
            let upserted = PostgresBaseline.upsert(pipeURL, second, create: false)
            record("re-import (upsert): write", reimported.write, upserted.write)
            // Stash's reader leaves the comparison with the stored rows to the save, where the
            // recipe's decode looked them up: the two steps together compare like with like.
            record(
                "re-import (upsert): decode + write", reimported.decode + reimported.write,
                upserted.decode + upserted.write)
            let fetched = try stashFetch(try PersistentContainer(for: Post.self, store: .postgres(stashURL)))
            let textFetched = PostgresBaseline.fetchText(pipeURL)
            let binaryFetched = PostgresBaseline.fetchBinary(pipeURL)
            guard fetched.checksum == textFetched.checksum, fetched.checksum == binaryFetched.checksum else {
                throw BenchError("the stores hold other data")
            }
            record("fetch all vs text SELECT", fetched.seconds, textFetched.seconds)
            record("fetch all vs binary SELECT", fetched.seconds, binaryFetched.seconds)
            record("drop what was fetched (binary)", fetched.drop, binaryFetched.drop)
        }
        print("operation                              Stash      baseline   ratio")
        for row in rows {
            let stash = median(row.stash)
            let baseline = median(row.baseline)
            print(
                row.label.padding(toLength: 38, withPad: " ", startingAt: 0)
                    + String(format: " %7.3f s  %7.3f s  %5.2fx", stash, baseline, stash / baseline))
        }
    }

}
