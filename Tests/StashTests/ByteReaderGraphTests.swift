import Foundation
import Testing

@testable import Stash

/// The byte-level reader against JSONDecoder on the object graph: nested objects,
/// references by unique value (`"writer": 3`, `"writerId"`, `"writer_id"`), to-many lists,
/// nulls and bad values; the stored tables are compared as the sqlite3 shell dumps them.
@Suite(.sqliteOnly("the reader against JSONDecoder, compared through the sqlite3 shell's .dump"))
struct ByteReaderGraphTests {
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        ), arguments: 0..<4)
    func generatedGraphsImportAlike(shard: Int) throws {
        var generator = GraphPayloadGenerator(seed: 0x6EA9_0000 + UInt64(shard))
        var imported = 0
        for round in 0..<15 {
            let snake = round % 3 == 0
            let clean = round % 2 == 0
            generator.startRound()
            let payloads = (0..<2).map { _ in generator.payload(snake: snake, clean: clean) }
            let reader = try importGraph(payloads, snake: snake, reader: true)
            let foundation = try importGraph(payloads, snake: snake, reader: false)
            #expect(
                reader == foundation,
                "shard \(shard) round \(round):\n\(payloads.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"))"
            )
            if !foundation.contains("error") { imported += 1 }
        }
        #expect(imported > 5)
    }

    /// Each relationship key (nested or by reference, to-one and to-many, and the keys that
    /// hold only references) given each value of `ReaderDecoderCallsTests.values`, one book a
    /// payload: the same errors and tables.
    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        ), arguments: [false, true])
    func everyValueForARelationshipImportsAlike(snake: Bool) throws {
        let keys = [
            "writer", snake ? "writer_id" : "writerId", "reviews", snake ? "review_ids" : "reviewIds", "publisher",
        ]
        var payloads: [Data] = []
        for (index, key) in keys.enumerated() {
            for (offset, value) in ReaderDecoderCallsTests.values.enumerated() {
                let id = index * 1_000 + offset
                payloads.append(Data(#"[{"id": \#(id), "title": "T", "\#(key)": \#(value)}]"#.utf8))
                // And in a list, where a reference or a nested object may stand.
                payloads.append(Data(#"[{"id": \#(id + 500), "\#(key)": [\#(value)]}]"#.utf8))
            }
        }
        let reader = try importGraph(payloads, snake: snake, reader: true)
        let foundation = try importGraph(payloads, snake: snake, reader: false)
        #expect(reader == foundation)
        // Enough is stored for the tables to be compared too, not only the errors.
        #expect(foundation.components(separatedBy: "INSERT INTO").count > 50)
    }

    /// Decodes each payload as `[Book]` into a new store file, saving after each, and
    /// answers the errors and the sqlite3 shell's dump of the store.
    private func importGraph(_ payloads: [Data], snake: Bool, reader: Bool) throws -> String {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        var outcome = ""
        do {
            let context = ManagedObjectContext(try graphContainer(at: file))
            let decoder = JSONDecoder()
            if snake { decoder.keyDecodingStrategy = .convertFromSnakeCase }
            decoder.userInfo[.byteReaderDisabled] = !reader
            for payload in payloads {
                do {
                    _ = try context.decode([Book].self, from: payload, using: decoder)
                    try context.save()
                } catch {
                    outcome += "error: \(readerErrorText(error))\n"
                    context.rollback()
                }
            }
        }
        return outcome + (try sqliteShell(file, ".dump"))
    }
}

/// Seeded `[Book]` payloads for `ByteReaderGraphTests`.
struct GraphPayloadGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
    private mutating func pick(_ options: [String]) -> String { options[below(options.count)] }

    /// Writers a payload of this round has nested with their names: a clean payload
    /// refers only to those (a reference to another makes a placeholder without its
    /// required name, which the save refuses).
    private var writers: Set<Int> = []
    private var clean = false

    mutating func startRound() { writers = [] }

    /// A clean payload has only values the models take.
    mutating func payload(snake: Bool, clean: Bool = false) -> Data {
        self.clean = clean
        let books = (0..<(1 + below(5))).map { _ in book(snake: snake) }
        return Data(("[" + books.joined(separator: ",") + "]").utf8)
    }

    private mutating func book(snake: Bool) -> String {
        var members = ["\"id\": \(below(8))"]
        if below(4) > 0 {
            members.append(
                "\"title\": " + pick(["\"A\"", "\"B \\u00e9\"", "\"\\ud83d\\ude00\""] + (clean ? [] : ["null"])))
        }
        switch below(clean ? 5 : 7) {
        case 0:
            let id = below(4)
            if clean { writers.insert(id) }
            let name = clean ? pick(["\"Ursula\"", "\"Octavia\""]) : pick(["\"Ursula\"", "\"Octavia\"", "null", "3"])
            members.append("\"writer\": {\"id\": \(id), \"name\": \(name)}")
        case 1 where !clean || !writers.isEmpty:
            members.append("\"writer\": \(clean ? writers.sorted()[below(writers.count)] : below(6))")
        case 2 where !clean || !writers.isEmpty:
            members.append(
                "\"\(snake ? "writer_id" : "writerId")\": \(clean ? writers.sorted()[below(writers.count)] : below(6))")
        case 3: members.append("\"writer\": null")
        case 4 where !clean: members.append("\"writer\": " + pick(["\"x\"", "[1]", "true", "1.5"]))
        default: break
        }
        if below(3) == 0 {
            let reviews = (0..<below(3)).map { _ in
                pick(
                    [
                        "{\"id\": \(below(6)), \"stars\": \(pick(["1", "5"] + (clean ? [] : ["null", "\"many\""])))}",
                        "\(below(6))",
                    ]
                        + (clean ? [] : ["null"]))
            }
            members.append("\"reviews\": [" + reviews.joined(separator: ",") + "]")
        }
        if below(4) == 0 {
            members.append("\"publisher\": " + pick(["{\"id\": 1}", "2", "null"] + (clean ? [] : ["{}"])))
        }
        if below(5) == 0 { members.append("\"extra\": {\"writer\": {\"id\": 99}}") }
        for index in members.indices.reversed() where index > 0 { members.swapAt(index, below(index + 1)) }
        return "{" + members.joined(separator: ", ") + "}"
    }
}
