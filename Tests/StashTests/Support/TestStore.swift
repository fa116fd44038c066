import Foundation
import Stash
import TestProcesses

/// A fresh directory for one test's store files, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stash-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String = "store.sqlite") -> URL {
        url.appendingPathComponent(name)
    }
}

/// A decoder as the recipe makes it, with the context in `userInfo`.
func recipeDecoder(_ context: ManagedObjectContext) -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.userInfo[.managedObjectContext] = context
    return decoder
}

/// JSON for `count` posts made by the test itself: ids from `firstID`.
func postsJSON(count: Int, firstID: Int = 1, titlePrefix: String = "Title") -> Data {
    let posts = (0..<count).map { offset -> [String: Any] in
        let id = firstID + offset
        return ["id": id, "userId": id % 7, "title": "\(titlePrefix) \(id)", "body": "Body of post \(id)\nline 2"]
    }
    return try! JSONSerialization.data(withJSONObject: posts)
}

func json(_ text: String) -> Data { Data(text.utf8) }

/// A container whose store already holds posts 1…`count` ("Title 1", …), saved through
/// the context returned with it; in memory unless a store file is given.
func savedPosts(_ count: Int, at storeURL: URL? = nil) throws -> (PersistentContainer, ManagedObjectContext) {
    let container =
        try storeURL.map { try testContainer(for: Post.self, storeURL: $0) }
        ?? testContainer(for: Post.self, inMemory: true)
    let context = ManagedObjectContext(container)
    _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: count))
    try context.save()
    return (container, context)
}

/// Runs the `sqlite3` shell, read-only, on `file` and returns what it prints; in a
/// PostgreSQL run, the statement on the database standing for `file` (`PostgresShell`).
func sqliteShell(_ file: URL, _ sql: String) throws -> String {
    if StoreKind.current == .postgres { return try PostgresShell.run(sql, standingFor: file) }
    return try runSQLiteShell(["-readonly", file.path, sql])
}

/// Runs the `sqlite3` shell on `file`, in another process, to change it; in a PostgreSQL
/// run, the statement on the database standing for `file`, on a connection of its own.
func sqliteShellWriting(_ file: URL, _ sql: String) throws -> String {
    if StoreKind.current == .postgres { return try PostgresShell.run(sql, standingFor: file) }
    return try runSQLiteShell([file.path, sql])
}

private func runSQLiteShell(_ arguments: [String]) throws -> String {
    let process = try ChildProcess("/usr/bin/env", ["sqlite3"] + arguments, standardOutput: .pipe)
    let data = process.standardOutputReader!.readDataToEndOfFile()
    process.waitUntilExit()
    // A statement the shell refused (a constraint, a lock) changed nothing: a test that went
    // on would check a store its statement never reached.
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw SQLiteShellFailure(arguments: arguments, status: process.terminationStatus)
    }
    return String(decoding: data, as: UTF8.self)
}

/// The `sqlite3` shell exited with an error (its message is on standard error).
struct SQLiteShellFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    var description: String { "sqlite3 \(arguments.joined(separator: " ")) exited with status \(status)" }
}

/// Where `../shared/fixtures` is, if this checkout has it beside it.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    static var available: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }
}
