import CLibPQ
import Foundation
import Stash
import StashPostgres

// stash-pg-bench: Stash on PostgreSQL against hand-written libpq, on the same generated
// payload, in one run: import (decode + save), re-import (upsert), fetch all.
//
//     swift build -c release --product stash-pg-bench
//     .build/release/stash-pg-bench --url "postgresql:///postgres?host=/tmp/pg&port=5432" [--records N]
//
// The URL names a database the run may create databases beside (one per iteration).

final class Post: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var body: String
    @Attribute var score: Double
    @Attribute var read: Bool = false
    @Attribute var publishedAt: Date
}

struct PostRecord: Decodable {
    let id: Int
    let title: String
    let body: String
    let score: Double
    let read: Bool
    let publishedAt: Date
}

var records = 10_000
var iterations = 3
var base = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--records": records = Int(arguments.popFirst() ?? "") ?? records
    case "--iterations": iterations = Int(arguments.popFirst() ?? "") ?? iterations
    case "--url": base = arguments.popFirst()
    default:
        print("usage: stash-pg-bench --url postgresql:///postgres?host=DIR [--records N] [--iterations N]")
        exit(2)
    }
}
guard let base, var components = URLComponents(string: base) else {
    print("stash-pg-bench: give --url or STASH_POSTGRES_URL (a postgresql:// URI)")
    exit(2)
}

@MainActor func payload(edited: Bool) -> Data {
    let posts = (0..<records).map { id -> [String: Any] in
        [
            "id": id, "title": "Title \(id)\(edited && id % 10 == 0 ? " (edited)" : "")",
            "body": String(repeating: "Body of post \(id). ", count: 8), "score": Double(id % 1000) / 10,
            "read": id % 3 == 0, "publishedAt": "2024-05-\(String(format: "%02d", id % 28 + 1))T09:30:00Z",
        ]
    }
    return try! JSONSerialization.data(withJSONObject: posts)
}

let first = payload(edited: false)
let second = payload(edited: true)
@MainActor func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

// MARK: libpq, by hand

@MainActor func connect(_ url: String) -> OpaquePointer {
    let connection = PQconnectdb(url)!
    guard PQstatus(connection) == CONNECTION_OK else { fatalError(String(cString: PQerrorMessage(connection))) }
    return connection
}

@discardableResult
@MainActor func exec(_ connection: OpaquePointer, _ sql: String) -> OpaquePointer {
    let result = PQexec(connection, sql)!
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN else {
        fatalError("\(sql): \(String(cString: PQerrorMessage(connection)))")
    }
    return result
}

let admin = connect(base)
var databaseCount = 0
@MainActor func newDatabase() -> String {
    databaseCount += 1
    let name = "bench_\(getpid())_\(databaseCount)"
    PQclear(exec(admin, "CREATE DATABASE \(name)"))
    components.path = "/" + name
    return components.string!
}

/// `2024-05-01T09:30:00.000Z`, what Stash stores, written and read by hand (Foundation's
/// ISO8601DateFormatter costs about 30 µs a date, more than the rest of a row).
@MainActor func isoText(_ date: Date) -> String {
    var time = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&time, &parts)
    let milliseconds = Int32((date.timeIntervalSince1970 - Double(time)) * 1000)
    var bytes = [UInt8](repeating: 0, count: 24)
    func put(_ value: Int32, _ start: Int, _ count: Int) {
        var value = value
        for index in stride(from: start + count - 1, through: start, by: -1) {
            bytes[index] = UInt8(48 + value % 10)
            value /= 10
        }
    }
    put(parts.tm_year + 1900, 0, 4)
    put(parts.tm_mon + 1, 5, 2)
    put(parts.tm_mday, 8, 2)
    put(parts.tm_hour, 11, 2)
    put(parts.tm_min, 14, 2)
    put(parts.tm_sec, 17, 2)
    put(milliseconds, 20, 3)
    for (index, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] {
        bytes[index] = UInt8(ascii: Unicode.Scalar(separator)!)
    }
    return String(decoding: bytes, as: UTF8.self)
}

@MainActor func isoDate(_ text: UnsafePointer<CChar>) -> Date {
    func number(_ start: Int, _ count: Int) -> Int32 {
        var value: Int32 = 0
        for index in start..<start + count { value = value * 10 + Int32(text[index]) - 48 }
        return value
    }
    var parts = tm()
    parts.tm_year = number(0, 4) - 1900
    parts.tm_mon = number(5, 2) - 1
    parts.tm_mday = number(8, 2)
    parts.tm_hour = number(11, 2)
    parts.tm_min = number(14, 2)
    parts.tm_sec = number(17, 2)
    return Date(timeIntervalSince1970: Double(timegm(&parts)) + Double(number(20, 3)) / 1000)
}

/// The table Stash makes for `Post`, made by hand for the baseline.
let createTable = """
    CREATE TABLE "Post" ("_pk" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "id" bigint NOT NULL,
    "title" text COLLATE "C" NOT NULL, "body" text COLLATE "C" NOT NULL, "score" double precision NOT NULL,
    "read" bigint NOT NULL, "publishedAt" text COLLATE "C" NOT NULL);
    CREATE UNIQUE INDEX "Post_id_unique" ON "Post" ("id")
    """

@MainActor func copyText(_ value: String) -> String {
    var escaped = ""
    for character in value.unicodeScalars {
        switch character {
        case "\\": escaped += "\\\\"
        case "\t": escaped += "\\t"
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        default: escaped.unicodeScalars.append(character)
        }
    }
    return escaped
}

/// JSONDecoder into structs, then `COPY "Post" FROM STDIN` in text format, one transaction.
@MainActor func baselineCopy(_ url: String, _ data: Data) -> (decode: Double, write: Double) {
    let connection = connect(url)
    defer { PQfinish(connection) }
    PQclear(exec(connection, createTable))
    let start = Date()
    let posts = try! decoder().decode([PostRecord].self, from: data)
    let decoded = Date()
    PQclear(exec(connection, "BEGIN"))
    PQclear(
        exec(connection, "COPY \"Post\" (\"id\", \"title\", \"body\", \"score\", \"read\", \"publishedAt\") FROM STDIN")
    )
    var chunk = ""
    for post in posts {
        chunk += "\(post.id)\t\(copyText(post.title))\t\(copyText(post.body))\t\(post.score)\t\(post.read ? 1 : 0)\t"
        chunk += isoText(post.publishedAt) + "\n"
        if chunk.utf8.count > 65_536 {
            _ = PQputCopyData(connection, chunk, Int32(chunk.utf8.count))
            chunk = ""
        }
    }
    _ = PQputCopyData(connection, chunk, Int32(chunk.utf8.count))
    _ = PQputCopyEnd(connection, nil)
    while let result = PQgetResult(connection) { PQclear(result) }
    PQclear(exec(connection, "COMMIT"))
    return (decoded.timeIntervalSince(start), Date().timeIntervalSince(decoded))
}

/// Multi-row `INSERT … ON CONFLICT ("id") DO UPDATE`, 1,000 rows a statement, text
/// parameters, in pipeline mode (every statement sent before the first answer is read).
@MainActor func baselineUpsert(_ url: String, _ data: Data, create: Bool) -> (decode: Double, write: Double) {
    let connection = connect(url)
    defer { PQfinish(connection) }
    if create { PQclear(exec(connection, createTable)) }
    let start = Date()
    let posts = try! decoder().decode([PostRecord].self, from: data)
    let decoded = Date()
    PQclear(exec(connection, "BEGIN"))
    _ = PQenterPipelineMode(connection)
    var sent = 0
    for batchStart in stride(from: 0, to: posts.count, by: 1000) {
        let batch = posts[batchStart..<min(batchStart + 1000, posts.count)]
        var sql = "INSERT INTO \"Post\" (\"id\", \"title\", \"body\", \"score\", \"read\", \"publishedAt\") VALUES "
        var values: [String] = []
        for (offset, post) in batch.enumerated() {
            if offset > 0 { sql += ", " }
            let n = offset * 6
            sql += "($\(n + 1)::int8, $\(n + 2), $\(n + 3), $\(n + 4)::float8, $\(n + 5)::int8, $\(n + 6))"
            values += [
                String(post.id), post.title, post.body, "\(post.score)", post.read ? "1" : "0",
                isoText(post.publishedAt),
            ]
        }
        sql += " ON CONFLICT (\"id\") DO UPDATE SET \"title\" = excluded.\"title\", \"body\" = excluded.\"body\", "
        sql +=
            "\"score\" = excluded.\"score\", \"read\" = excluded.\"read\", \"publishedAt\" = excluded.\"publishedAt\""
        var pointers = values.map { strdup($0) }
        let pointerCount = pointers.count
        pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constBuffer in
                _ = PQsendQueryParams(connection, sql, Int32(pointerCount), nil, constBuffer.baseAddress, nil, nil, 0)
            }
        }
        for pointer in pointers { free(pointer) }
        sent += 1
    }
    _ = PQpipelineSync(connection)
    var answered = 0
    while answered < sent {
        while let result = PQgetResult(connection) {
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                fatalError(String(cString: PQresultErrorMessage(result)))
            }
            PQclear(result)
        }
        answered += 1
    }
    while let result = PQgetResult(connection) {
        let isSync = PQresultStatus(result) == PGRES_PIPELINE_SYNC
        PQclear(result)
        if isSync { break }
    }
    _ = PQexitPipelineMode(connection)
    PQclear(exec(connection, "COMMIT"))
    return (decoded.timeIntervalSince(start), Date().timeIntervalSince(decoded))
}

/// `SELECT` every row in text format into structs.
@MainActor func baselineFetch(_ url: String) -> (seconds: Double, checksum: Int) {
    let connection = connect(url)
    defer { PQfinish(connection) }
    let start = Date()
    let result = exec(
        connection,
        "SELECT \"id\", \"title\", \"body\", \"score\", \"read\", \"publishedAt\" FROM \"Post\" ORDER BY \"_pk\"")
    var posts: [PostRecord] = []
    posts.reserveCapacity(Int(PQntuples(result)))
    for row in 0..<PQntuples(result) {
        func text(_ column: Int32) -> String { String(cString: PQgetvalue(result, row, column)) }
        posts.append(
            PostRecord(
                id: Int(strtoll(PQgetvalue(result, row, 0), nil, 10)), title: text(1), body: text(2),
                score: strtod(PQgetvalue(result, row, 3), nil), read: strtoll(PQgetvalue(result, row, 4), nil, 10) != 0,
                publishedAt: isoDate(PQgetvalue(result, row, 5))))
    }
    PQclear(result)
    let seconds = Date().timeIntervalSince(start)
    return (seconds, posts.reduce(0) { $0 &+ $1.id &+ $1.title.utf8.count })
}

// MARK: Stash

@MainActor func stashImport(_ container: PersistentContainer, _ data: Data) throws -> (decode: Double, write: Double) {
    let context = ManagedObjectContext(container)
    let decoder = decoder()
    decoder.userInfo[.managedObjectContext] = context
    let start = Date()
    _ = try decoder.decode([Post].self, from: data)
    let decoded = Date()
    try context.save()
    return (decoded.timeIntervalSince(start), Date().timeIntervalSince(decoded))
}

@MainActor func stashFetch(_ container: PersistentContainer) throws -> (seconds: Double, checksum: Int) {
    let context = ManagedObjectContext(container)
    let start = Date()
    let posts = try context.fetch(FetchDescriptor<Post>())
    var checksum = 0
    for post in posts {
        checksum = checksum &+ post.id &+ post.title.utf8.count
        _ = (post.body, post.score, post.read, post.publishedAt)
    }
    return (Date().timeIntervalSince(start), checksum)
}

// MARK: Run

@MainActor func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
var rows: [(String, [Double], [Double])] = []
@MainActor func record(_ label: String, _ stash: Double, _ baseline: Double) {
    if let index = rows.firstIndex(where: { $0.0 == label }) {
        rows[index].1.append(stash)
        rows[index].2.append(baseline)
    } else {
        rows.append((label, [stash], [baseline]))
    }
}

print("stash-pg-bench: \(records) records, \(first.count / 1_000_000) MB JSON, \(iterations) iterations, medians")
for _ in 0..<iterations {
    let stashURL = newDatabase()
    let container = try PersistentContainer(for: Post.self, postgres: stashURL)
    let imported = try stashImport(container, first)
    let copyURL = newDatabase()
    let copied = baselineCopy(copyURL, first)
    let pipeURL = newDatabase()
    let piped = baselineUpsert(pipeURL, first, create: true)
    record("import: JSON decode", imported.decode, copied.decode)
    record("import: write vs COPY", imported.write, copied.write)
    record("import: write vs pipelined INSERT", imported.write, piped.write)
    let reimported = try stashImport(try PersistentContainer(for: Post.self, postgres: stashURL), second)
    let upserted = baselineUpsert(pipeURL, second, create: false)
    record("re-import (upsert): write", reimported.write, upserted.write)
    let fetched = try stashFetch(try PersistentContainer(for: Post.self, postgres: stashURL))
    let baseFetched = baselineFetch(pipeURL)
    precondition(fetched.checksum == baseFetched.checksum, "the two stores hold other data")
    record("fetch all + read every field", fetched.seconds, baseFetched.seconds)
}
print("operation                              Stash      baseline   ratio")
for (label, stash, baseline) in rows {
    let s = median(stash)
    let b = median(baseline)
    print(
        label.padding(toLength: 38, withPad: " ", startingAt: 0)
            + String(format: " %7.3f s  %7.3f s  %5.2fx", s, b, s / b))
}
