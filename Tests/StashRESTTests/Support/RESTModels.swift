import Foundation
import Stash
import StashREST
import TestProcesses

/// What the test server's `/items` serves.
final class Item: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var tags: [String] = []
}

/// Plain values only: what an import hands to the caller's context by value.
final class Note: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var writtenAt: Date
    @Attribute var link: URL?
}

/// The Core Data idiom: a hand-written `init(from:)` that inserts itself into the decoder's
/// context and sets its own attributes.
final class HandNote: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    enum CodingKeys: String, CodingKey {
        case id, title
    }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try Self.context(of: decoder))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
    }

    /// The context the decoder carries, as the idiom finds it.
    static func context(of decoder: any Decoder) throws -> ManagedObjectContext {
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no context"))
        }
        return context
    }
}

/// The hand-written idiom, paced by the test: for a title "wait for <path>", `init(from:)`
/// waits up to 20 seconds for a file at that path (the test server makes it when a request
/// names it, `touch`) and keeps, as its title, whether the file came.
final class PacedNote: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    static let waitPrefix = "wait for "
    /// A title that makes the decode pause (0.3 s), then note whether the file it names is
    /// there: "present" or "absent".
    static let checkPrefix = "check after a pause "
    /// A title kept as it is, whose save pauses (2.5 s, in `willSave()`): the import's loop
    /// is then in its save, away from any request or decode.
    static let slowSave = "slow save"

    override func willSave() {
        if title == Self.slowSave { Thread.sleep(forTimeInterval: 2.5) }
    }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try HandNote.context(of: decoder))
        let container = try decoder.container(keyedBy: HandNote.CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        let title = try container.decode(String.self, forKey: .title)
        if title.hasPrefix(Self.checkPrefix) {
            Thread.sleep(forTimeInterval: 0.3)
            let path = String(title.dropFirst(Self.checkPrefix.count))
            self.title = FileManager.default.fileExists(atPath: path) ? "present" : "absent"
            return
        }
        guard title.hasPrefix(Self.waitPrefix) else {
            self.title = title
            return
        }
        let path = String(title.dropFirst(Self.waitPrefix.count))
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: path), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        self.title = FileManager.default.fileExists(atPath: path) ? "came" : "did not come"
    }
}

/// GitHub issues with their nested `user`, as the recorded scenarios have them.
final class Issue: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var number: Int
    @Attribute var title: String
    @Attribute var state: String
    @Relationship var user: GitHubUser?
}

final class GitHubUser: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var login: String
}

/// A store file in a fresh temporary directory, removed with it.
final class TemporaryStore {
    let directory: URL
    var file: URL { directory.appendingPathComponent("store.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stash-rest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The REST tests' models; no `HTTPValidator`: a store keeps validators without it.
    func container() throws -> PersistentContainer {
        try Self.container(at: file)
    }

    /// A container of the REST tests' models on `file`: for a task that has the file's URL,
    /// not the store (another container on the same file).
    static func container(at file: URL) throws -> PersistentContainer {
        try PersistentContainer(
            for: Item.self, Issue.self, GitHubUser.self, Note.self, HandNote.self, PacedNote.self, storeURL: file)
    }

    /// The models as a store made before Stash kept validators itself had them: with the
    /// `HTTPValidator` model.
    func legacyContainer() throws -> PersistentContainer {
        try PersistentContainer(
            for: Item.self, Issue.self, GitHubUser.self, Note.self, HandNote.self, PacedNote.self, HTTPValidator.self,
            storeURL: file)
    }

    /// What the `sqlite3` shell answers for `sql` on the store file, read only: the store as
    /// a user sees it without Stash.
    func sqlite(_ sql: String) throws -> String {
        let shell = try ChildProcess(
            "/usr/bin/env", ["sqlite3", "-readonly", file.path, sql], standardInput: .nullDevice,
            standardOutput: .pipe, standardError: .standardOutput)
        let data = shell.standardOutputReader!.readDataToEndOfFile()
        shell.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `sql` on the store file in the `sqlite3` shell: another process, writing as a
    /// user would by hand. Throws the shell's output if it fails.
    func write(_ sql: String) throws {
        try Self.write(sql, to: file)
    }

    /// Runs `sql` on `file` in the `sqlite3` shell, as `write(_:)` does: for a task that has
    /// the file's URL, not the store.
    static func write(_ sql: String, to file: URL) throws {
        let shell = try ChildProcess(
            "/usr/bin/env", ["sqlite3", file.path, sql], standardInput: .nullDevice, standardOutput: .pipe,
            standardError: .standardOutput)
        let output = shell.standardOutputReader!.readDataToEndOfFile()
        shell.waitUntilExit()
        guard shell.terminationStatus == 0 else { throw ShellFailure(output: String(decoding: output, as: UTF8.self)) }
    }

    struct ShellFailure: Error {
        let output: String
    }

    /// The rows of a table, counted in another connection.
    func count(_ table: String) throws -> Int {
        let context = ManagedObjectContext(try table == "HTTPValidator" ? legacyContainer() : container())
        switch table {
        case "Item": return try context.fetchCount(FetchDescriptor<Item>())
        case "Issue": return try context.fetchCount(FetchDescriptor<Issue>())
        case "GitHubUser": return try context.fetchCount(FetchDescriptor<GitHubUser>())
        case "Note": return try context.fetchCount(FetchDescriptor<Note>())
        case "HandNote": return try context.fetchCount(FetchDescriptor<HandNote>())
        case "PacedNote": return try context.fetchCount(FetchDescriptor<PacedNote>())
        case "HTTPValidator": return try context.fetchCount(FetchDescriptor<HTTPValidator>())
        default: preconditionFailure("\(table) is not one of the REST tests' models")
        }
    }
}

/// A client of the test server that retries quickly.
func testClient(_ server: TestServer, _ change: (inout RESTConfiguration) -> Void = { _ in }) -> RESTClient {
    var configuration = RESTConfiguration()
    configuration.retry.initialDelay = .milliseconds(10)
    configuration.retry.maximumDelay = .milliseconds(50)
    configuration.timeout = .seconds(5)
    change(&configuration)
    return RESTClient(baseURL: server.base, configuration: configuration)
}

/// The test server's path that answers `json` as it is (`/body`).
func bodyPath(_ json: String) -> String {
    "body?json=" + queryValue(json)
}

/// `text` encoded for a query parameter's value.
func queryValue(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}

/// The test server, an empty store and a context of it: where most REST tests start.
func serverAndEmptyStore() async throws -> (TestServer, TemporaryStore, ManagedObjectContext) {
    let server = try await TestServer.start()
    let store = try TemporaryStore()
    return (server, store, ManagedObjectContext(try store.container()))
}

/// Options for an envelope `{"data": […], "next": url}`.
func nextURLOptions() -> FetchOptions {
    var options = FetchOptions()
    options.itemsKey = "data"
    options.pagination = .nextURL(key: "next")
    return options
}
