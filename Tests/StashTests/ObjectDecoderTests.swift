import Foundation
import Testing

@testable import Stash

/// The context's object decoder alone, called with a decoder positioned at one object: which
/// object a unique value names, what a partial payload does, and how a failure is named.
@Suite struct ObjectDecoderTests {
    /// Decodes one `Post` through the part, not through `Post.init(from:)`.
    private struct ThroughThePart: Decodable {
        let object: ManagedObject

        init(from decoder: any Decoder) throws {
            let context = decoder.userInfo[.managedObjectContext] as! ManagedObjectContext
            object = try context.decoding.decodeObject(of: Post.self, from: decoder)
        }
    }

    private func decode(_ text: String, into context: ManagedObjectContext) throws -> Post {
        try #require(try recipeDecoder(context).decode(ThroughThePart.self, from: json(text)).object as? Post)
    }

    @Test func aUniqueValueNamesTheContextsObjectThenTheStoredRowsThenANewOne() throws {
        let (container, _) = try savedPosts(2)
        let context = ManagedObjectContext(container)
        let stored = try decode(#"{"id": 2, "title": "Two again"}"#, into: context)
        // The stored row's object: only what the JSON gave is set, the rest waits for the row.
        #expect(stored.state == .persisted && stored.objectID.rowID == 2)
        let body = try #require(stored.entity.attribute(named: "body")).index
        #expect(stored.unloaded.contains(body))
        #expect(stored.body == "Body of post 2\nline 2" && stored.title == "Two again")
        let again = try decode(#"{"id": 2, "userId": 9}"#, into: context)
        #expect(again === stored && again.userId == 9 && again.title == "Two again")
        let new = try decode(#"{"id": 3, "userId": 1, "title": "Three", "body": ""}"#, into: context)
        #expect(new.state == .inserted && new !== stored)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
    }

    @Test func aMissingRequiredKeyFailsOnlyANewObjectAndSaysWhere() throws {
        let (container, _) = try savedPosts(1)
        let context = ManagedObjectContext(container)
        // The stored row has a title: a payload without one updates what it gives.
        #expect(try decode(#"{"id": 1, "body": "new body"}"#, into: context).title == "Title 1")
        let error = #expect(throws: StashError.self) {
            _ = try decode(#"{"id": 5, "userId": 1, "body": ""}"#, into: context)
        }
        #expect(error?.code == .decodingFailed && error?.entity == "Post" && error?.attribute == "title")
        #expect(error?.message.contains("\"title\"") == true)
    }
}

/// Records, as each is decoded, how much room its entity's unique index had: what
/// `ReservedRoomTests` checks.
final class Arrival: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var roomAtArrival: Int = 0

    override func awakeFromInsert() {
        guard let context = managedObjectContext, let state = try? context.identity.state(forType: Arrival.self) else {
            return
        }
        roomAtArrival = state.uniqueIndexes[0].capacity
    }
}

/// An array the byte-level reader decodes makes room in its entity's unique index for all of
/// its objects before the first (`expectDecodedObjects`); `decodeAndSave`, which holds one
/// batch at a time, for one batch.
@Suite struct ReservedRoomTests {
    private func payload(_ count: Int) -> Data {
        Data(("[" + (0..<count).map { #"{"id": \#($0)}"# }.joined(separator: ",") + "]").utf8)
    }

    @Test func anArrayOfObjectsMakesRoomForAllOfThemAtOnce() throws {
        let context = ManagedObjectContext(try testContainer(for: Arrival.self, inMemory: true))
        let arrivals = try context.decode([Arrival].self, from: payload(300))
        #expect(arrivals.count == 300)
        #expect(arrivals[0].roomAtArrival >= 300)
        // Fewer than 64 elements grow the index as they come.
        let few = try ManagedObjectContext(context.container).decode([Arrival].self, from: payload(10))
        #expect(few[0].roomAtArrival < 10)
    }

    /// The room is made before any element is decoded: an array whose first element is no
    /// object makes none, and a huge one makes room for `reservedAtMost`.
    @Test func roomIsMadeOnlyForObjectsAndBoundedInAdvance() throws {
        let context = ManagedObjectContext(try testContainer(for: Arrival.self, inMemory: true))
        let numbers = Data(("[" + (0..<300).map(String.init).joined(separator: ",") + "]").utf8)
        #expect(throws: (any Error).self) { try context.decode([Arrival].self, from: numbers) }
        let state = try context.identity.state(forType: Arrival.self)
        #expect(state.uniqueIndexes[0].capacity < 300)
        context.expectDecodedObjects(50_000_000, of: Arrival.self)
        #expect(state.uniqueIndexes[0].capacity >= ManagedObjectContext.reservedAtMost)
        #expect(state.uniqueIndexes[0].capacity < 4 * ManagedObjectContext.reservedAtMost)
        #expect(state.inserted.capacity < 4 * ManagedObjectContext.reservedAtMost)
    }

    @Test func decodeAndSaveMakesRoomForOneBatch() throws {
        let container = try testContainer(for: Arrival.self, inMemory: true)
        try ManagedObjectContext(container).decodeAndSave([Arrival].self, from: payload(3_000), batchSize: 100)
        let rooms = try ManagedObjectContext(container).fetch(FetchDescriptor<Arrival>(sortBy: [SortDescriptor(\.id)]))
            .map(\.roomAtArrival)
        #expect(rooms.count == 3_000)
        // The first batch's objects find room for the batch; none finds room for the array.
        #expect(rooms.prefix(100).allSatisfy { $0 >= 100 })
        #expect(rooms.allSatisfy { $0 < 1_000 })
    }
}

/// A crate whose label's decoding decodes another crate, from a JSON string the label holds,
/// through JSONDecoder: into the context its own decoder carries, or `innerContext` if set. One
/// object's decode nested inside another's, between its unique values and its other attributes.
final class Crate: ManagedObject, Decodable {
    @Attribute(.unique) var code: String
    @Attribute var label: CrateLabel
}

/// A pallet holding a nested crate: the crate is decoded for a relationship.
final class Pallet: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Relationship var crate: Crate?
}

struct CrateLabel: Codable, Equatable {
    /// The context the inner crate is decoded into, in place of the label's decoder's.
    @TaskLocal static var innerContext: ManagedObjectContext?

    var text: String

    private enum Keys: String, CodingKey {
        case text, crate
    }

    init(text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        text = try container.decode(String.self, forKey: .text)
        if let crate = try container.decodeIfPresent(String.self, forKey: .crate) {
            let inner = JSONDecoder()
            inner.userInfo[.managedObjectContext] =
                Self.innerContext ?? decoder.userInfo[.managedObjectContext] as? ManagedObjectContext
            _ = try inner.decode(Crate.self, from: Data(crate.utf8))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(text, forKey: .text)
    }
}

@Suite struct NestedObjectDecodeTests {
    /// The arrays an object's unique values are decoded into are kept between objects: one
    /// nested decode must not leave its values in them for the next (the crate after would be
    /// found by the one before's key), nor take the outer one's.
    @Test func anObjectDecodedInsideAnothersKeepsEachOnesUniqueValuesApart() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(for: Crate.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let inner = #"{\"code\": \"B\", \"label\": {\"text\": \"inner\"}}"#
        let payload =
            #"[{"code": "A", "label": {"text": "outer", "crate": "\#(inner)"}}, {"code": "C", "label": {"text": "after"}}]"#
        let crates = try recipeDecoder(context).decode([Crate].self, from: json(payload))
        #expect(crates.map { $0.code } == ["A", "C"])
        #expect(crates.map { $0.label.text } == ["outer", "after"])
        // Each crate's unique index entry is its own: a second payload finds them all.
        let again = try recipeDecoder(context).decode(
            [Crate].self,
            from: json(
                #"[{"code": "B", "label": {"text": "B2"}}, {"code": "A", "label": {"text": "A2"}}, {"code": "C", "label": {"text": "C2"}}]"#
            ))
        #expect(again[1] === crates[0] && again[2] === crates[1])
        #expect(again.map { $0.label.text } == ["B2", "A2", "C2"])
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(
            FetchDescriptor<Crate>(sortBy: [SortDescriptor(\Crate.code)]))
        #expect(stored.map { $0.code } == ["A", "B", "C"] && stored.map { $0.label.text } == ["A2", "B2", "C2"])
    }

    /// The nested crate is decoded by the byte-level reader, which finds its context itself:
    /// the parent's context handed over for JSONDecoder's path must not wait on the thread for
    /// another decode of a crate to take (the label's, into another context).
    @Test func aNestedObjectOnTheReadersPathLeavesNoContextForAnotherDecode() throws {
        let directory = try TemporaryDirectory()
        let first = try PersistentContainer(for: Pallet.self, Crate.self, storeURL: directory.file("first.sqlite"))
        let second = try PersistentContainer(for: Crate.self, storeURL: directory.file("second.sqlite"))
        let (outer, other) = (ManagedObjectContext(first), ManagedObjectContext(second))
        let inner = #"{\"code\": \"Y\", \"label\": {\"text\": \"inner\"}}"#
        let payload = #"[{"id": 1, "crate": {"code": "X", "label": {"text": "outer", "crate": "\#(inner)"}}}]"#
        let pallets = try CrateLabel.$innerContext.withValue(other) {
            try outer.decode([Pallet].self, from: json(payload))
        }
        #expect(pallets.first?.crate?.code == "X")
        try outer.save()
        try other.save()
        #expect(try ManagedObjectContext(first).fetch(FetchDescriptor<Crate>()).map { $0.code } == ["X"])
        #expect(try ManagedObjectContext(second).fetch(FetchDescriptor<Crate>()).map { $0.code } == ["Y"])
    }

    /// A nested decode that fails keeps no context on the thread: the context is freed when
    /// dropped, and a later decode that names none says so.
    @Test func aFailedNestedDecodeKeepsNoContextAlive() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(for: Pallet.self, Crate.self, storeURL: directory.file())
        weak var dropped: ManagedObjectContext?
        do {
            let context = ManagedObjectContext(container)
            dropped = context
            #expect(throws: (any Error).self) {
                _ = try recipeDecoder(context).decode(
                    [Pallet].self, from: json(#"[{"id": 1, "crate": {"code": 5, "label": {"text": "x"}}}]"#))
            }
        }
        #expect(dropped == nil)
        let error = #expect(throws: StashError.self) {
            _ = try JSONDecoder().decode(Crate.self, from: json(#"{"code": "Z", "label": {"text": "z"}}"#))
        }
        #expect(error?.code == .missingContext)
    }
}
