import Foundation
import Synchronization
import TestProcesses
import Testing

@testable import Stash

// The byte-level reader (`TapeDecoder`) against JSONDecoder: the same values, the same
// stored rows, the same errors, over the real-world corpus and over generated payloads.

/// Any JSON value, read through every kind of container, to compare the two decoders on
/// whole documents.
indirect enum AnyJSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case text(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: ReaderTestKey.self) {
            var members: [String: AnyJSON] = [:]
            // In key order: JSONDecoder's `allKeys` come in its dictionary's order, and the
            // first member that fails is the error.
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members[key.stringValue] = try object.decode(AnyJSON.self, forKey: key)
            }
            self = .object(members)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [AnyJSON] = []
            while !array.isAtEnd { elements.append(try array.decode(AnyJSON.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .text(try single.decode(String.self))
        }
    }
}

struct ReaderTestKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A model for any record of the corpus: a unique integer id, and optional fields under
/// names the corpus's APIs use.
final class CorpusRecord: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String?
    @Attribute var title: String?
    @Attribute var body: String?
    @Attribute var url: URL?
    @Attribute var type: String?
    @Attribute var score: Double?
    @Attribute var number: Int?
    @Attribute var createdAt: Date?
    @Attribute var login: String?
    @Attribute var completed: Bool = false
    @Attribute var userId: Int?
    @Attribute var kids: [Int] = []
    @Attribute var tags: [String: String]?
}

/// The same with a text id taken from numbers too, and a nested key.
final class CorpusKeyedRecord: ManagedObject, Codable {
    @Attribute(.unique, .lossless) var id: String
    @Attribute(key: "user.login") var userLogin: String?
    @Attribute(key: "html_url") var htmlURL: URL?
    @Attribute var title: String?
    @Attribute var updatedAt: Date?
}

/// Generated payloads' model: every scalar kind JSONDecoder reads its own way.
final class GeneratedRecord: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
    @Attribute var count: Int?
    @Attribute var ratio: Double = 0
    @Attribute var flag: Bool = false
    @Attribute var when: Date?
    @Attribute var link: URL?
    @Attribute var tags: [String] = []
    @Attribute var small: Int8?
    @Attribute var big: UInt64?
    @Attribute var price: Decimal?
    @Attribute var blob: Data?
    @Attribute var level: Float?
    @Attribute(key: "note_text") var note: String?
    @Attribute(key: "meta.rank") var rank: Int?
}

/// A value at a key path of the payload (`userInfo[ReaderAtPath.pathKey]`), as StashREST's
/// envelope reads it; the reader takes it.
struct ReaderAtPath<Value: ReaderDecodable>: ReaderDecodable {
    let value: Value
    static var pathKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "ReaderAtPath.path")! }
    static var readerModelTypes: [ManagedObject.Type] { Value.readerModelTypes }

    init(from decoder: any Decoder) throws {
        let path = (decoder.userInfo[Self.pathKey] as? [String]) ?? []
        guard let last = path.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: ReaderTestKey.self)
        for key in path.dropLast() {
            container = try container.nestedContainer(
                keyedBy: ReaderTestKey.self, forKey: ReaderTestKey(stringValue: key)!)
        }
        value = try container.decode(Value.self, forKey: ReaderTestKey(stringValue: last)!)
    }
}

/// An error as the comparison sees it: its kind, path and message (not an underlying
/// error's type, which is each decoder's own).
func readerErrorText(_ error: any Error) -> String {
    switch error {
    case let error as StashError:
        return "StashError \(error.code) entity=\(error.entity ?? "-") attribute=\(error.attribute ?? "-") "
            + "path=\(error.codingPath) \(error.message)"
    case let error as DecodingError:
        switch error {
        case .keyNotFound(let key, let context):
            return "keyNotFound \(key.stringValue) \(CodingPathText.format(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "typeMismatch \(type) \(CodingPathText.format(context.codingPath)) \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound \(type) \(CodingPathText.format(context.codingPath)) \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "dataCorrupted \(CodingPathText.format(context.codingPath)) \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    default:
        return "\(type(of: error)) \(error)"
    }
}

/// The decoders the comparisons run under: key and date strategies the reader supports.
enum ReaderConfigurations {
    static func all() -> [(String, JSONDecoder)] {
        let plain = JSONDecoder()
        plain.dateDecodingStrategy = .iso8601
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        snake.dateDecodingStrategy = .secondsSince1970
        let lenient = JSONDecoder()
        lenient.keyDecodingStrategy = .convertFromSnakeCase
        lenient.dateDecodingStrategy = .lenient
        let deferred = JSONDecoder()
        deferred.dateDecodingStrategy = .millisecondsSince1970
        deferred.dataDecodingStrategy = .deferredToData
        return [("iso8601", plain), ("snake+seconds", snake), ("snake+lenient", lenient), ("milliseconds", deferred)]
    }
}

/// Decodes `data` as `T` into a new in-memory store twice, by the reader and by
/// JSONDecoder, and answers what each left: the error, or every stored row (read back
/// through a fresh context) as sorted JSON.
func readerDifferential<Model: ManagedObject & Codable, T: Decodable>(
    _ type: T.Type, _ model: Model.Type, _ data: [Data], decoder: JSONDecoder, path: [String] = []
) throws -> (reader: String, foundation: String) {
    func run(disabled: Bool) throws -> String {
        let container = try testContainer(for: Model.self, inMemory: true)
        let context = ManagedObjectContext(container)
        var outcome = ""
        for payload in data {
            decoder.userInfo[.byteReaderDisabled] = disabled
            decoder.userInfo[ReaderAtPath<[Model]>.pathKey] = path
            do {
                _ = try context.decode(type, from: payload, using: decoder)
                try context.save()
            } catch {
                outcome += "error: \(readerErrorText(error))\n"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let rows = try ManagedObjectContext(container).fetch(FetchDescriptor<Model>())
        for row in rows {
            outcome += String(decoding: try encoder.encode(row), as: UTF8.self) + "\n"
        }
        return outcome
    }
    return (try run(disabled: false), try run(disabled: true))
}

@Suite(
    .sqliteOnly(
        "the reader against JSONDecoder, the store incidental: its PostgreSQL run added 30 s to the suite (152 s against 120 s)"
    )) struct ByteReaderDifferentialTests
{
    /// Every fixture read whole as `AnyJSON`, by the reader and by JSONDecoder.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"))
    func everyFixtureReadsAlikeAsPlainJSON() throws {
        let files = try fixtureFiles()
        #expect(files.count > 50)
        for file in files {
            let data = try Data(contentsOf: file)
            for (name, decoder) in ReaderConfigurations.all() {
                let reader = Result {
                    try TapeDecoder.decode(AnyJSON.self, from: data, options: ReaderOptions(decoder)!, userInfo: [:])
                }
                let foundation = Result { try decoder.decode(AnyJSON.self, from: data) }
                switch (reader, foundation) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(file.lastPathComponent) \(name)")
                case (.failure(let a), .failure(let b)):
                    #expect(readerErrorText(a) == readerErrorText(b), "\(file.lastPathComponent) \(name)")
                default:
                    Testing.Issue.record(
                        "\(file.lastPathComponent) \(name): reader \(reader), JSONDecoder \(foundation)")
                }
            }
        }
    }

    /// Every array of objects and every object in every fixture, decoded into models by
    /// both paths under each configuration: the same rows, or the same error.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"))
    func everyFixtureImportsAlike() throws {
        var compared = 0
        for file in try fixtureFiles() {
            let data = try Data(contentsOf: file)
            let paths = recordPaths(in: data)
            for (name, decoder) in ReaderConfigurations.all() {
                for (path, isArray) in paths {
                    let label = "\(file.lastPathComponent) \(path.joined(separator: ".")) \(name)"
                    if isArray {
                        let a = try readerDifferential(
                            ReaderAtPath<[CorpusRecord]>.self, CorpusRecord.self, [data], decoder: decoder, path: path)
                        #expect(a.reader == a.foundation, "\(label)")
                        let b = try readerDifferential(
                            ReaderAtPath<[CorpusKeyedRecord]>.self, CorpusKeyedRecord.self, [data], decoder: decoder,
                            path: path)
                        #expect(b.reader == b.foundation, "\(label)")
                    } else if path.isEmpty {
                        let a = try readerDifferential(CorpusRecord.self, CorpusRecord.self, [data], decoder: decoder)
                        #expect(a.reader == a.foundation, "\(label)")
                        let b = try readerDifferential(
                            CorpusKeyedRecord.self, CorpusKeyedRecord.self, [data], decoder: decoder)
                        #expect(b.reader == b.foundation, "\(label)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 100)
    }

    /// Seeded generated payloads: random values, key orders, unknown keys, nulls, bad
    /// values, escapes, deep nesting, duplicate keys, broken documents; each pair of
    /// payloads decoded into one context in turn (the second upserts the first's rows).
    @Test(arguments: 0..<8)
    func generatedPayloadsImportAlike(shard: Int) throws {
        var generator = ReaderPayloadGenerator(seed: 0x5EED_0000 + UInt64(shard))
        var rowsCompared = 0
        for round in 0..<40 {
            let configurations = ReaderConfigurations.all()
            let (name, decoder) = configurations[round % configurations.count]
            let clean = round % 2 == 0
            let payloads = [
                generator.payload(config: name, clean: clean), generator.payload(config: name, clean: clean),
            ]
            let outcome = try readerDifferential(
                [GeneratedRecord].self, GeneratedRecord.self, payloads, decoder: decoder)
            if clean {
                rowsCompared += outcome.foundation.split(separator: "\n").filter { !$0.hasPrefix("error") }.count
            }
            #expect(
                outcome.reader == outcome.foundation,
                "shard \(shard) round \(round) \(name):\n\(payloads.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"))"
            )
        }
        // Clean payloads must mostly import, or the rows compared would be few.
        #expect(rowsCompared > 40)
    }

    /// A null for a non-optional attribute with a default leaves the default, and its
    /// value's own `init(from:)` runs once for it on the reader's path, as through JSONDecoder:
    /// the reader's container answered "no value", and the boxed container was asked again.
    @Test func aNullForADefaultedValueIsDecodedOnce() throws {
        let container = try testContainer(for: CountedMetaRecord.self, inMemory: true)
        let data = Data(#"[{"id": 1, "meta": null}, {"id": 2, "meta": {"rank": 7}}, {"id": 3}]"#.utf8)
        var calls: [Int] = []
        for disabled in [false, true] {
            CountedMeta.decoded.withLock { $0 = 0 }
            let decoder = JSONDecoder()
            decoder.userInfo[.byteReaderDisabled] = disabled
            let records = try ManagedObjectContext(container).decode(
                [CountedMetaRecord].self, from: data, using: decoder)
            #expect(records.map(\.meta.rank) == [0, 7, 0])
            calls.append(CountedMeta.decoded.withLock { $0 })
        }
        // The null and the object each call it once; the absent key does not.
        #expect(calls == [2, 2])
    }

    /// A string's bytes that are not UTF-8 (a lone continuation byte, an overlong form, an
    /// encoded surrogate, a cut sequence, 0xFF) fail the document as JSONDecoder fails it, and
    /// the UTF-8 around them reads alike.
    @Test func stringsThatAreNotUTF8FailAlike() throws {
        let valid: [[UInt8]] = [Array("café".utf8), Array("日本語".utf8), Array("🙂 ok".utf8), Array("e\u{301}".utf8)]
        let invalid: [[UInt8]] = [
            [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xFF], [0xF4, 0x90, 0x80, 0x80],
        ]
        for bytes in valid + invalid.map({ Array("ab".utf8) + $0 + Array("é".utf8) }) {
            let data = Data(Array(#"["x", ""#.utf8) + bytes + Array(#""]"#.utf8))
            let reader = Result {
                try TapeDecoder.decode([String].self, from: data, options: ReaderOptions(JSONDecoder())!, userInfo: [:])
            }
            let foundation = Result { try JSONDecoder().decode([String].self, from: data) }
            switch (reader, foundation) {
            case (.success(let a), .success(let b)): #expect(a == b && a[1].utf8.elementsEqual(bytes), "\(bytes)")
            case (.failure(let a), .failure(let b)): #expect(readerErrorText(a) == readerErrorText(b), "\(bytes)")
            default: Testing.Issue.record("\(bytes): reader \(reader), JSONDecoder \(foundation)")
            }
        }
    }

    /// Numbers read as `Double` come out bit for bit as JSONDecoder gives them: the short
    /// decimals the reader divides out itself (up to 15 digits, no exponent) and the forms
    /// around them that go through the text (16 and more digits, exponents, zeros, signs).
    @Test func doublesReadToTheSameBits() throws {
        var random = SplitMix64(seed: 0xD0_0B1E)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        }
        var texts = ["0", "-0", "0.0", "-0.0", "0.000", "1", "-1", "0.1", "0.3", "2.675", "9007199254740993"]
        texts += ["999999999999999", "999999999999999.9", "0.000000000000001", "123456789012345", "1.5e3", "-2E-5"]
        for _ in 0..<20_000 {
            let whole = Int.random(in: 1...18, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            let integer = digits(Int.random(in: 0..<whole, using: &random) + 1)
            text += integer.count > 1 && integer.hasPrefix("0") ? "1" + integer.dropFirst() : integer
            let fraction = whole - integer.count
            if fraction > 0 { text += "." + digits(fraction) }
            if Int.random(in: 0..<10, using: &random) == 0 { text += "e\(Int.random(in: -30...30, using: &random))" }
            texts.append(text)
        }
        let data = Data("[\(texts.joined(separator: ","))]".utf8)
        let reader = try TapeDecoder.decode(
            [Double].self, from: data, options: ReaderOptions(JSONDecoder())!, userInfo: [:])
        let foundation = try JSONDecoder().decode([Double].self, from: data)
        #expect(reader.count == texts.count)
        let differing = zip(texts, zip(reader, foundation)).filter { $1.0.bitPattern != $1.1.bitPattern }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { "\($0.0): \($0.1.0) against \($0.1.1)" })")
    }

    /// Also whole generated documents as plain JSON, where nothing model-specific hides a
    /// difference.
    @Test func generatedDocumentsReadAlikeAsPlainJSON() throws {
        var generator = ReaderPayloadGenerator(seed: 42)
        for round in 0..<400 {
            let (name, decoder) = ReaderConfigurations.all()[round % 4]
            let data = generator.payload(config: name)
            let reader = Result {
                try TapeDecoder.decode(AnyJSON.self, from: data, options: ReaderOptions(decoder)!, userInfo: [:])
            }
            let foundation = Result { try decoder.decode(AnyJSON.self, from: data) }
            let text = String(decoding: data, as: UTF8.self)
            switch (reader, foundation) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
            case (.failure(let a), .failure(let b)): #expect(readerErrorText(a) == readerErrorText(b), "\(text)")
            default: Testing.Issue.record("\(text): reader \(reader), JSONDecoder \(foundation)")
            }
        }
    }

    /// A nested container asked of a value of another kind (a number, a string, an array or
    /// an object, `null`), through a keyed and an unkeyed container, fails as JSONDecoder
    /// fails it: same kind of error, same coding path (the key or index included), same text.
    /// So does a super decoder: of an absent key it reads `null`; past an array's end it fails.
    @Test func nestedContainersOfTheWrongKindFailAlike() throws {
        let values = ["5", #""text""#, "[1]", #"{"a": 1}"#, "null"]
        for value in values {
            for shape in NestedContainerProbe.Shape.allCases {
                let data = Data(#"[{"id": 1, "inner": {"x": \#(value)}, "list": [\#(value)]}]"#.utf8)
                let userInfo: [CodingUserInfoKey: any Sendable] = [NestedContainerProbe.key: shape.rawValue]
                let reader = Result {
                    try TapeDecoder.decode(
                        [NestedContainerProbe].self, from: data, options: ReaderOptions(JSONDecoder())!,
                        userInfo: userInfo)
                }
                let foundation = JSONDecoder()
                foundation.userInfo = userInfo
                let expected = Result { try foundation.decode([NestedContainerProbe].self, from: data) }
                switch (reader, expected) {
                case (.success, .success): break
                case (.failure(let a), .failure(let b)):
                    #expect(readerErrorText(a) == readerErrorText(b), "\(shape) of \(value)")
                default: Testing.Issue.record("\(shape) of \(value): reader \(reader), JSONDecoder \(expected)")
                }
            }
        }
    }

    /// The reader is the default for models with Stash's default decoding, and steps aside
    /// for a hand-written `init(from:)` and for settings it does not support.
    @Test func takenForDefaultDecodingOnly() throws {
        let container = try testContainer(for: CorpusRecord.self, HandWrittenReaderModel.self, inMemory: true)
        let probe = ManagedObjectContext(container)
        let decoder = JSONDecoder()
        #expect(ReaderEligibility.options(for: [CorpusRecord].self, decoder: decoder, container: container) != nil)
        #expect(ReaderEligibility.options(for: CorpusRecord.self, decoder: decoder, container: container) != nil)
        #expect(ReaderEligibility.usesDefaultDecoding(CorpusRecord.self, probe))
        #expect(!ReaderEligibility.usesDefaultDecoding(HandWrittenReaderModel.self, probe))
        #expect(probe.hasChanges, "the hand-written init(from:) inserted its object into the probe's own context")
        #expect(
            ReaderEligibility.options(for: [HandWrittenReaderModel].self, decoder: decoder, container: container) == nil
        )
        let custom = JSONDecoder()
        custom.keyDecodingStrategy = .custom { $0.last! }
        #expect(ReaderEligibility.options(for: [CorpusRecord].self, decoder: custom, container: container) == nil)
        let json5 = JSONDecoder()
        json5.allowsJSON5 = true
        #expect(ReaderEligibility.options(for: [CorpusRecord].self, decoder: json5, container: container) == nil)
        let disabled = JSONDecoder()
        disabled.userInfo[.byteReaderDisabled] = true
        #expect(ReaderEligibility.options(for: [CorpusRecord].self, decoder: disabled, container: container) == nil)
    }

    private func fixtureFiles() throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: Fixtures.directory, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "json" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Key paths (of object keys only) to arrays of objects and to objects, the top first.
    private func recordPaths(in data: Data) -> [([String], Bool)] {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return [([], true), ([], false)]
        }
        var paths: [([String], Bool)] = []
        func walk(_ value: Any, _ path: [String]) {
            guard paths.count < 12 else { return }
            if let array = value as? [Any] {
                if array.first is [String: Any] { paths.append((path, true)) }
            } else if let object = value as? [String: Any] {
                paths.append((path, false))
                for key in object.keys.sorted() { walk(object[key]!, path + [key]) }
            }
        }
        walk(root, [])
        if paths.isEmpty { paths = [([], true), ([], false)] }
        return paths
    }
}

/// A model with its own `init(from:)`: the reader must leave it to JSONDecoder.
final class HandWrittenReaderModel: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int

    enum CodingKeys: String, CodingKey { case id }

    required convenience init(from decoder: any Decoder) throws {
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
            throw StashError(.missingContext, "no context")
        }
        self.init(context: context)
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
    }
}

/// A value kept as JSON text whose `init(from:)` counts its calls.
struct CountedMeta: Codable, Equatable {
    var rank: Int
    static let decoded = Mutex<Int>(0)

    init(rank: Int) { self.rank = rank }

    init(from decoder: any Decoder) throws {
        Self.decoded.withLock { $0 += 1 }
        rank = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .rank)
    }
}

final class CountedMetaRecord: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute var meta = CountedMeta(rank: 0)
}
