import Foundation
import Testing

@testable import Stash

/// `#Predicate { $0.id == id }` skips the predicate walk and the SQL renderer (see
/// `PredicateTranslator.keyEquality`, `EntitySQL.selectWhereEqual`): each shortcut must give
/// exactly what the long way gives, and step aside for every other shape.
@Suite struct LookUpShortcutTests {
    let container: PersistentContainer
    let entity: EntityDescription

    init() throws {
        container = try PersistentContainer(for: Sample.self, inMemory: true)
        entity = try container.entity(for: Sample.self)
    }

    /// The shortcut's expression, which must be the walk's.
    private func shortcut(_ predicate: Predicate<Sample>, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> QueryExpression?
    {
        let quick = PredicateTranslator.keyEquality(predicate, for: entity)
        if let quick {
            #expect(quick == (try PredicateTranslator.walk(predicate, for: entity)), sourceLocation: sourceLocation)
        }
        return quick
    }

    @Test func everyPlainAttributeTypeTakesTheShortcutToTheWalksAnswer() throws {
        let id = 5
        let int8: Int8 = -3
        let uint64 = UInt64(Int64.max)
        let double = 0.1 + 0.2
        let float: Float = 3.14159
        let text = "Zürich \u{0} naïve 🧑‍💻 \"quoted\""
        let decomposed = "e\u{301}"
        let url = URL(string: "https://example.com/a%20b?q=1&r=é#frag")!
        let uuid = UUID()
        let data = Data([0, 1, 255])
        let tags = ["a", "b,c"]
        let high = Priority.high
        #expect(try shortcut(#Predicate { $0.id == id }) != nil)
        #expect(try shortcut(#Predicate { $0.id == 7 }) != nil)
        #expect(try shortcut(#Predicate { $0.int8 == int8 }) != nil)
        #expect(try shortcut(#Predicate { $0.uint64 == uint64 }) != nil)
        #expect(try shortcut(#Predicate { $0.double == double }) != nil)
        #expect(try shortcut(#Predicate { $0.float == float }) != nil)
        #expect(try shortcut(#Predicate { $0.flag == true }) != nil)
        #expect(try shortcut(#Predicate { $0.text == text }) != nil)
        #expect(try shortcut(#Predicate { $0.text == decomposed }) != nil)
        #expect(try shortcut(#Predicate { $0.url == url }) != nil)
        #expect(try shortcut(#Predicate { $0.uuid == uuid }) != nil)
        #expect(try shortcut(#Predicate { $0.data == data }) != nil)
        #expect(try shortcut(#Predicate { $0.priority == high }) != nil)
        #expect(try shortcut(#Predicate { $0.tags == tags }) != nil)
        #expect(
            try shortcut(#Predicate { $0.id == id })
                == .compare(
                    .column(entity.attributes.first { $0.name == "id" }!.index), .equal, .value(.integer(5)), .stored))
    }

    /// Optional attributes (`IS`), dates (moved to the millisecond), decimals (by value),
    /// computed key paths, other shapes: the walk.
    @Test func everyOtherShapeTakesTheWalk() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let decimal = Decimal(string: "1.5")!
        let optional: Int? = 3
        let job: Kind? = .job
        let tooLarge = UInt64.max
        #expect(try shortcut(#Predicate { $0.date == date }) == nil)
        #expect(try shortcut(#Predicate { $0.decimal == decimal }) == nil)
        #expect(try shortcut(#Predicate { $0.optionalInt == optional }) == nil)
        #expect(try shortcut(#Predicate { $0.optionalInt == nil }) == nil)
        #expect(try shortcut(#Predicate { $0.kind == job }) == nil)
        #expect(try shortcut(#Predicate { $0.text.count == 3 }) == nil)
        #expect(try shortcut(#Predicate { 5 == $0.id }) == nil)
        #expect(try shortcut(#Predicate { $0.id == 5 && $0.flag }) == nil)
        #expect(try shortcut(#Predicate { $0.id != 5 }) == nil)
        // A constant the store cannot keep: the walk's error, not the shortcut's.
        #expect(try shortcut(#Predicate { $0.uint64 == tooLarge }) == nil)
        #expect(throws: StashError.self) {
            try PredicateTranslator.walk(#Predicate<Sample> { $0.uint64 == tooLarge }, for: entity)
        }
    }

    /// The SQL made once per column is the renderer's, with and without a limit or offset;
    /// a query of another shape is rendered as before.
    @Test func theLookUpsSQLIsTheRenderers() throws {
        let store = try #require(container.store as? SQLiteStore)
        let schema = entity.schema
        // Made for every column of the store's own entities, or the shortcut never runs.
        #expect(store.entitySQL(schema).selectWhereEqual.count == schema.columns.count)
        let selectAll = store.entitySQL(schema).selectAllColumns
        for column in schema.columns.indices {
            for (limit, offset) in [(nil, nil), (1, nil), (nil, 2), (3, 4)] as [(Int?, Int?)] {
                var query = StoreQuery(schema)
                query.predicate = .compare(.column(column), .equal, .value(.text("x")), .stored)
                query.limit = limit
                query.offset = offset
                let quick = store.renderedSelect(query)
                let rendered = SQLiteStore.renderSelect(query, selectingAll: selectAll)
                #expect(quick.text == rendered.text)
                #expect(quick.parameters == rendered.parameters)
            }
        }
        var sorted = StoreQuery(schema)
        sorted.predicate = .compare(.column(0), .equal, .value(.integer(1)), .stored)
        sorted.sort = [QuerySort(key: .column(1), descending: true, ordering: .stored)]
        #expect(store.renderedSelect(sorted).text == SQLiteStore.renderSelect(sorted, selectingAll: selectAll).text)
        #expect(store.renderedSelect(sorted).text.contains("DESC"))
    }

    /// Through a context, on both stores: the objects a look-up finds, with unsaved changes
    /// merged in.
    @Test(.bothStores) func aLookUpFindsTheRowAndTheContextsChanges() throws {
        let context = ManagedObjectContext(try testContainer(for: Sample.self, inMemory: true))
        for id in 1...3 {
            let sample = Sample(context: context)
            sample.id = id
            sample.text = "sample \(id)"
        }
        try context.save()
        let id = 2
        #expect(
            try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.id == id })).map(\.text) == [
                "sample 2"
            ])
        let text = "sample 3"
        let third = try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.text == text }))
        #expect(third.map(\.id) == [3])
        third[0].text = "changed"
        #expect(try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.text == text })).isEmpty)
        let changed = "changed"
        #expect(
            try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.text == changed })).map(\.id) == [3])
        #expect(try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.id == 9 })).isEmpty)
    }

    /// Text compares by code points in both stores: the precomposed "é" finds its row, not one
    /// spelled e + U+0301; binary and wide values find theirs.
    @Test(.bothStores) func lookUpsOfLookAlikesAndWideValues() throws {
        let context = ManagedObjectContext(try testContainer(for: Sample.self, inMemory: true))
        let uuid = UUID()
        let data = Data([0, 1, 255])
        let precomposed = "caf\u{e9}"
        let decomposed = "cafe\u{301}"
        let first = Sample(context: context)
        first.id = 1
        first.text = precomposed
        first.uuid = uuid
        first.data = data
        first.uint64 = UInt64(Int64.max)
        first.float = 3.25
        try context.save()
        let second = Sample(context: context)
        second.id = 2
        second.text = decomposed
        func ids(_ predicate: Predicate<Sample>) throws -> [Int] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.id)])).map(\.id)
        }
        // Before the save the unsaved object is judged in Swift, where the two spellings are
        // equal; the store tells them apart (see the README's rule on text).
        #expect(try ids(#Predicate { $0.text == decomposed }) == [2])
        try context.save()
        #expect(try ids(#Predicate { $0.text == precomposed }) == [1])
        #expect(try ids(#Predicate { $0.text == decomposed }) == [2])
        let wide = UInt64(Int64.max)
        let float: Float = 3.25
        #expect(try ids(#Predicate { $0.uuid == uuid }) == [1])
        #expect(try ids(#Predicate { $0.data == data }) == [1])
        #expect(try ids(#Predicate { $0.uint64 == wide }) == [1])
        #expect(try ids(#Predicate { $0.float == float }) == [1])
    }
}
