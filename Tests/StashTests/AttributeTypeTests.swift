import Foundation
import Stash
import Testing

/// Every attribute type goes to the file and comes back exactly.
@Suite(.bothStores) struct AttributeTypeTests {
    @Test(.sqliteOnly("stores text holding U+0000, which PostgreSQL refuses by name (invalidValue)"))
    func everyTypeRoundTripsThroughAFileStore() throws {
        let directory = try TemporaryDirectory()
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let text = "Zürich \u{0} naïve 🧑‍💻 — \"quoted\" 'single' \n tab\t end"
        do {
            let context = ManagedObjectContext(try testContainer(for: Sample.self, storeURL: directory.file()))
            let sample = Sample(context: context)
            sample.id = 1
            sample.int8 = .min
            sample.int16 = .max
            sample.int32 = .min
            sample.int64 = .max
            sample.uint8 = .max
            sample.uint16 = .max
            sample.uint32 = .max
            sample.uint64 = UInt64(Int64.max)
            sample.uint = 42
            sample.double = 0.1 + 0.2
            sample.float = 3.14159
            sample.flag = true
            sample.text = text
            sample.date = date
            sample.url = URL(string: "https://example.com/a%20b?q=1&r=é#frag")!
            sample.uuid = uuid
            sample.data = Data([0, 1, 2, 255, 0])
            sample.decimal = Decimal(string: "12345678901234567890.123456789")!
            sample.priority = .high
            sample.kind = .job
            sample.tags = ["a", "b,c", "☃"]
            sample.geo = Geo(lat: "-37.3159", lng: "81.1496")
            sample.optionalInt = 0
            sample.optionalDate = Date(timeIntervalSince1970: -86_400.5)
            sample.optionalURL = nil
            sample.optionalDecimal = Decimal(string: "-0.001")
            let empty = Sample(context: context)
            empty.id = 2
            try context.save()
        }
        let context = ManagedObjectContext(try testContainer(for: Sample.self, storeURL: directory.file()))
        let samples = try context.fetch(FetchDescriptor<Sample>())
        try #require(samples.count == 2)
        let sample = samples[0]
        #expect(sample.int8 == .min)
        #expect(sample.int16 == .max)
        #expect(sample.int32 == .min)
        #expect(sample.int64 == .max)
        #expect(sample.uint8 == .max)
        #expect(sample.uint16 == .max)
        #expect(sample.uint32 == .max)
        #expect(sample.uint64 == UInt64(Int64.max))
        #expect(sample.uint == 42)
        #expect(sample.double == 0.1 + 0.2)
        #expect(sample.float == 3.14159)
        #expect(sample.flag)
        #expect(sample.text == text)
        #expect(sample.text.utf8.count == text.utf8.count)
        #expect(sample.date == date)
        #expect(sample.url == URL(string: "https://example.com/a%20b?q=1&r=é#frag")!)
        #expect(sample.uuid == uuid)
        #expect(sample.data == Data([0, 1, 2, 255, 0]))
        #expect(sample.decimal == Decimal(string: "12345678901234567890.123456789")!)
        #expect(sample.priority == .high)
        #expect(sample.kind == .job)
        #expect(sample.tags == ["a", "b,c", "☃"])
        #expect(sample.geo == Geo(lat: "-37.3159", lng: "81.1496"))
        #expect(sample.optionalInt == 0)
        #expect(sample.optionalDate == Date(timeIntervalSince1970: -86_400.5))
        #expect(sample.optionalURL == nil)
        #expect(sample.optionalDecimal == Decimal(string: "-0.001"))

        let empty = samples[1]
        #expect(empty.kind == nil && empty.geo == nil && empty.optionalInt == nil && empty.optionalDate == nil)
        #expect(empty.text == "" && empty.tags == [] && empty.priority == .low)
    }

    @Test(.sqliteOnly("reads SQLite's storage classes through the shell (typeof)"))
    func storedFormsAreReadableInTheShell() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try testContainer(for: Sample.self, storeURL: directory.file()))
        let sample = Sample(context: context)
        sample.id = 9
        sample.date = Date(timeIntervalSince1970: 1_714_555_800.25)
        sample.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        sample.decimal = Decimal(string: "12.50")!
        sample.priority = .high
        sample.kind = .story
        sample.tags = ["swift", "sqlite"]
        sample.geo = Geo(lat: "1", lng: "2")
        sample.flag = true
        sample.data = Data([0xCA, 0xFE])
        try context.save()

        let row = try sqliteShell(
            directory.file(),
            "SELECT id, date, uuid, decimal, priority, kind, tags, geo, flag, hex(data), optionalInt IS NULL FROM Sample"
        )
        #expect(
            row
                == "9|2024-05-01T09:30:00.250Z|e621e1f8-c36c-495a-93fc-0c247a3e6e5f|12.5|2|story|[\"swift\",\"sqlite\"]|{\"lat\":\"1\",\"lng\":\"2\"}|1|CAFE|1\n"
        )
        let types = try sqliteShell(
            directory.file(), "SELECT typeof(id), typeof(double), typeof(date), typeof(data) FROM Sample")
        #expect(types == "integer|real|text|blob\n")
    }

    @Test func datesKeepMilliseconds() throws {
        let context = ManagedObjectContext(try testContainer(for: Sample.self, inMemory: true))
        let dates = [
            Date(timeIntervalSince1970: 0.001), Date(timeIntervalSince1970: 1_700_000_000.999),
            Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: 253_402_300_799.999),
            Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
        ]
        for (index, date) in dates.enumerated() {
            let sample = Sample(context: context)
            sample.id = index
            sample.date = date
        }
        try context.save()
        let fetched = try ManagedObjectContext(context.container).fetch(FetchDescriptor<Sample>())
        #expect(fetched.map(\.date) == dates)
    }

    @Test func decodedValuesOfEveryTypeSave() throws {
        let context = ManagedObjectContext(try testContainer(for: Sample.self, inMemory: true))
        let decoder = recipeDecoder(context)
        decoder.dateDecodingStrategy = .iso8601
        let sample = try decoder.decode(
            Sample.self,
            from: json(
                #"""
                {"id": 5, "int8": -5, "uint64": 18, "double": 1.5, "float": 2.5, "flag": true, "text": "hi",
                 "date": "2024-01-02T03:04:05Z", "url": "https://x.test/p", "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                 "data": "AAEC", "decimal": 19.99, "priority": 2, "kind": "story", "tags": ["t"],
                 "geo": {"lat": "1", "lng": "2"}, "optionalInt": null, "optionalDate": "2024-01-02T03:04:05Z"}
                """#))
        try context.save()
        let stored = try ManagedObjectContext(context.container).fetch(FetchDescriptor<Sample>())[0]
        #expect(stored !== sample)
        #expect(stored.int8 == -5 && stored.uint64 == 18 && stored.double == 1.5 && stored.float == 2.5)
        #expect(stored.flag && stored.text == "hi")
        #expect(stored.date == Date(timeIntervalSince1970: 1_704_164_645))
        #expect(stored.url.absoluteString == "https://x.test/p")
        #expect(stored.data == Data([0, 1, 2]))
        #expect(stored.decimal == Decimal(string: "19.99")!)
        #expect(stored.priority == .high && stored.kind == .story && stored.tags == ["t"])
        #expect(stored.geo == Geo(lat: "1", lng: "2"))
        #expect(stored.optionalInt == nil)
        #expect(stored.optionalDate == stored.date)
    }

    @Test func unsignedValuesBeyondInt64AreAnErrorThatNamesTheAttribute() throws {
        let context = ManagedObjectContext(try testContainer(for: Sample.self, inMemory: true))
        let sample = Sample(context: context)
        sample.id = 1
        sample.uint64 = .max
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .invalidValue)
        #expect(error?.entity == "Sample")
        #expect(error?.attribute == "uint64")
        #expect(context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Sample>()) == 1)  // the unsaved insert
        #expect(try ManagedObjectContext(context.container).fetchCount(FetchDescriptor<Sample>()) == 0)
    }
}
