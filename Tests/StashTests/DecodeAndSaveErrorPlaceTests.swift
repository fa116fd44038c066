import Foundation
import Stash
import Synchronization
import Testing

/// Where a `decodeAndSave` says its batch write failed: the element whose object the save
/// refused, not only the batch it was in. Serialized: the refused ids are the models' own.
@Suite(.bothStores, .serialized)
struct DecodeAndSaveErrorPlaceTests {
    final class Checked: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Relationship var writer: CheckedWriter?

        /// The ids whose insert or update is refused.
        static let refused = Mutex<Set<Int>>([])

        override func validateForInsert() throws { try check() }
        override func validateForUpdate() throws { try check() }

        private func check() throws {
            if Self.refused.withLock({ $0.contains(id) }) {
                throw StashError(.validationFailed, "refuses \(title)", entity: "Checked", attribute: "id")
            }
        }
    }

    final class CheckedWriter: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Relationship(inverse: \Checked.writer) var pieces: [Checked]

        static let refused = Mutex<Set<Int>>([])

        override func validateForInsert() throws {
            if Self.refused.withLock({ $0.contains(id) }) {
                throw StashError(.validationFailed, "refuses writer \(id)", entity: "CheckedWriter")
            }
        }
    }

    /// Elements with these ids (title `t<position>`), every tenth with a nested writer.
    static func payload(_ ids: [Int]) -> Data {
        let items = ids.enumerated().map { position, id in
            let writer = position % 10 == 0 ? #", "writer": {"id": \#(position), "name": "w"}"# : ""
            return #"{"id": \#(id), "title": "t\#(position)"\#(writer)}"#
        }
        return Data("[\(items.joined(separator: ","))]".utf8)
    }

    func refusing(_ pieces: Set<Int>, writers: Set<Int> = [], _ body: () throws -> Void) rethrows {
        Checked.refused.withLock { $0 = pieces }
        CheckedWriter.refused.withLock { $0 = writers }
        defer {
            Checked.refused.withLock { $0 = [] }
            CheckedWriter.refused.withLock { $0 = [] }
        }
        try body()
    }

    func importing(_ data: Data, batchSize: Int, into container: PersistentContainer) -> StashError? {
        #expect(throws: StashError.self) {
            try ManagedObjectContext(container).decodeAndSave([Checked].self, from: data, batchSize: batchSize)
        }
    }

    /// The refused element is named whatever the batch, and the store is as it was.
    @Test(arguments: [1, 100, 1_000])
    func theRefusedElementIsNamed(batchSize: Int) throws {
        let container = try testContainer(for: Checked.self, CheckedWriter.self, inMemory: true)
        refusing([777]) {
            // Id 777 is element 776.
            let error = importing(Self.payload(Array(1...800)), batchSize: batchSize, into: container)
            #expect(error?.codingPath == "[776]")
            #expect(error?.code == .validationFailed)
            #expect(error?.description.contains("refuses t776") == true)
        }
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Checked>()) == 0)
    }

    /// Two elements with the same id are one object, which holds what the last one gave: the
    /// last one is named, in its batch or in a later batch that updates the row.
    @Test(arguments: [100, 1_000])
    func anObjectNamedTwiceIsPlacedAtItsLastElement(batchSize: Int) throws {
        let container = try testContainer(for: Checked.self, CheckedWriter.self, inMemory: true)
        var ids = Array(1...300)
        ids[150] = 5  // element 150 names the object of element 4 again
        refusing([5]) {
            let error = importing(Self.payload(ids), batchSize: batchSize, into: container)
            // In one batch, the object is refused as it is inserted with element 150's title;
            // in batches of 100, as element 4 is inserted first.
            #expect(error?.codingPath == (batchSize == 100 ? "[4]" : "[150]"))
            #expect(error?.description.contains(batchSize == 100 ? "refuses t4" : "refuses t150") == true)
        }
        // Only the update is refused: the first batch's insert was let through.
        try refusing([]) {
            _ = try ManagedObjectContext(container).decodeAndSave(
                [Checked].self, from: Self.payload([5]), batchSize: batchSize)
        }
        var later = Array(1_000...1_300)
        later[150] = 5  // the stored row, in the second batch of 100
        refusing([5]) {
            let error = importing(Self.payload(later), batchSize: 100, into: container)
            #expect(error?.codingPath == "[150]")
            #expect(error?.description.contains("refuses t150") == true)
        }
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Checked>())
        #expect(stored.map(\.title) == ["t0"])
    }

    /// The hand-written `init(from:)` makes a new object for an id another element already
    /// named, which stands in for the first: the refusal of the first is still placed at the
    /// last element that named it.
    @Test func aStandInIsPlacedAtItsElement() throws {
        let container = try testContainer(for: HandChecked.self, inMemory: true)
        var ids = Array(1...300)
        ids[150] = 5  // element 150 names the object of element 4 again
        let items = ids.enumerated().map { #"{"id": \#($1), "title": "t\#($0)"}"# }
        HandChecked.refused.withLock { $0 = [5] }
        defer { HandChecked.refused.withLock { $0 = [] } }
        let error = #expect(throws: StashError.self) {
            try ManagedObjectContext(container).decodeAndSave(
                [HandChecked].self, from: Data("[\(items.joined(separator: ","))]".utf8), batchSize: 1_000)
        }
        #expect(error?.codingPath == "[150]")
        #expect(error?.description.contains("refuses t150") == true)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<HandChecked>()) == 0)
    }

    /// A nested object is not an element: its refusal names the batch.
    @Test func aRefusedNestedObjectNamesItsBatch() throws {
        let container = try testContainer(for: Checked.self, CheckedWriter.self, inMemory: true)
        refusing([], writers: [230]) {
            let error = importing(Self.payload(Array(1...400)), batchSize: 100, into: container)
            #expect(error?.codingPath == "[200]…[299]")
            #expect(error?.entity == "CheckedWriter")
        }
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<CheckedWriter>()) == 0)
    }
}

/// The hand-written idiom: the context from the decoder, the values set one by one.
final class HandChecked: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    static let refused = Mutex<Set<Int>>([])

    enum CodingKeys: String, CodingKey { case id, title }

    required convenience init(from decoder: any Decoder) throws {
        self.init(context: try contextOf(decoder))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
    }

    override func validateForInsert() throws {
        if Self.refused.withLock({ $0.contains(id) }) {
            throw StashError(.validationFailed, "refuses \(title)", entity: "HandChecked", attribute: "id")
        }
    }
}
