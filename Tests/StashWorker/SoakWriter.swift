import Foundation
import Stash

/// One writer process: until its deadline, saves a few rows of the shared id range at a
/// time, every column of each from one save. It alternates the ways an app writes: setters
/// in one long-lived context (whose rows another process moves on meanwhile, so it often
/// sets a value to what it last saw) and decoding into a fresh context.
struct SoakWriter {
    let store: URL
    let writer: Int
    let rows: Int
    let deadline: Date

    /// The saves made.
    func run() throws -> Int {
        let container = try PersistentContainer(for: SoakRow.self, storeURL: store, busyTimeout: .seconds(30))
        let longLived = ManagedObjectContext(container)
        var generator = SystemRandomNumberGenerator()
        var seq = 0
        var saves = 0
        while Date() < deadline {
            seq += 1
            let ids = (0..<4).map { _ in Int.random(in: 0..<rows, using: &generator) }
            if seq.isMultiple(of: 2) {
                try writeBySetters(ids, seq: seq, in: longLived)
            } else {
                try writeByDecoding(ids, seq: seq, in: ManagedObjectContext(container))
            }
            saves += 1
        }
        return saves
    }

    private func writeBySetters(_ ids: [Int], seq: Int, in context: ManagedObjectContext) throws {
        let found = try context.fetch(FetchDescriptor<SoakRow>(predicate: #Predicate { ids.contains($0.id) }))
        var byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in ids where byID[id] == nil {
            let row = SoakRow(context: context)
            row.id = id
            byID[id] = row
        }
        for row in byID.values {
            row.writer = writer
            row.seq = seq
            row.check = SoakRow.check(writer: writer, seq: seq)
        }
        try context.save()
    }

    private func writeByDecoding(_ ids: [Int], seq: Int, in context: ManagedObjectContext) throws {
        let objects = Set(ids).map { id in
            #"{"id":\#(id),"writer":\#(writer),"seq":\#(seq),"check":"\#(SoakRow.check(writer: writer, seq: seq))"}"#
        }
        _ = try context.decode([SoakRow].self, from: Data("[\(objects.joined(separator: ","))]".utf8))
        try context.save()
    }
}
