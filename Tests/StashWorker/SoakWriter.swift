import Foundation
import Stash

/// One writer process: until its deadline, saves a few rows of the shared id range at a
/// time (`SoakRow.ids`), every column of each from one save, and its own `SoakMark` with its
/// count of saves. It alternates the ways an app writes: setters in one long-lived context
/// (whose rows another process moves on meanwhile, so it often sets a value to what it last
/// saw), decoding into a fresh context, and `decodeAndSave` in batches. Meanwhile it counts the other writers' saves its
/// container's `changes` delivers.
struct SoakWriter {
    let store: SoakStore
    let writer: Int
    let rows: Int
    let deadline: Date

    func run() throws -> Soak.Report {
        let container = try store.open()
        let hearing = try SoakHearing(container, own: writer)
        let longLived = ManagedObjectContext(container)
        let mark = try longLived.fetch(FetchDescriptor<SoakMark>(predicate: #Predicate { $0.writer == writer })).first
        guard let mark else { throw SoakFailure("writer \(writer) has no SoakMark row") }
        var seq = 0
        while Date() < deadline {
            seq += 1
            let ids = SoakRow.ids(writer: writer, seq: seq, rows: rows)
            if seq.isMultiple(of: 2) {
                mark.saves = seq
                try writeBySetters(ids, seq: seq, in: longLived)
            } else if seq % 4 == 1 {
                try writeByBatches(ids, seq: seq, in: ManagedObjectContext(container))
                mark.saves = seq
                try longLived.save()
            } else {
                try writeByDecoding(ids, seq: seq, in: ManagedObjectContext(container))
            }
        }
        // The last saves' notifications are on their way.
        Thread.sleep(forTimeInterval: 0.3)
        return Soak.Report(writer: writer, saves: seq, heard: hearing.stop())
    }

    private func writeBySetters(_ ids: Set<Int>, seq: Int, in context: ManagedObjectContext) throws {
        let wanted = Array(ids)
        let found = try context.fetch(FetchDescriptor<SoakRow>(predicate: #Predicate { wanted.contains($0.id) }))
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

    /// `decodeAndSave` in batches of two: its batches in one transaction, while the other
    /// writers save the same rows.
    private func writeByBatches(_ ids: Set<Int>, seq: Int, in context: ManagedObjectContext) throws {
        _ = try context.decodeAndSave([SoakRow].self, from: payload(ids, seq: seq), batchSize: 2)
    }

    private func payload(_ ids: Set<Int>, seq: Int) -> Data {
        let objects = ids.map { id in
            #"{"id":\#(id),"writer":\#(writer),"seq":\#(seq),"check":"\#(SoakRow.check(writer: writer, seq: seq))"}"#
        }
        return Data("[\(objects.joined(separator: ","))]".utf8)
    }

    private func writeByDecoding(_ ids: Set<Int>, seq: Int, in context: ManagedObjectContext) throws {
        _ = try context.decode([SoakRow].self, from: payload(ids, seq: seq))
        _ = try context.decode(SoakMark.self, from: Data(#"{"writer":\#(writer),"saves":\#(seq)}"#.utf8))
        try context.save()
    }
}
