import Foundation
import TestProcesses
import Testing

@testable import Stash

/// Text and blobs bound from a save's arena (`BindArena`): each copy stays where it is while
/// more are made, chunks or not, and what the store keeps is what the objects held, through
/// multi-row inserts and row-by-row updates, values larger than a chunk among them.
@Suite struct BindArenaTests {
    @Test func copiesStayPutAsTheArenaGrows() {
        let arena = BindArena()
        var random = SplitMix64(seed: 11)
        // Sizes around a chunk's (64 KB) and far below it, empty ones too.
        let sizes =
            [0, 1, 7, 65_536, 3, 65_535, 0, 140_000, 12, 65_537] + (0..<200).map { _ in Int(random.next() % 900) }
        var copies: [(pointer: UnsafeRawPointer, bytes: [UInt8])] = []
        for size in sizes {
            let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let pointer = bytes.withUnsafeBytes { arena.copy($0) }
            copies.append((pointer, bytes))
        }
        for (index, copy) in copies.enumerated() {
            let held = Array(UnsafeRawBufferPointer(start: copy.pointer, count: copy.bytes.count))
            #expect(held == copy.bytes, "copy \(index) of \(copy.bytes.count) bytes")
        }
        // Rewound, the arena is filled again from the start and keeps its copies apart.
        arena.rewind()
        let first = [UInt8](repeating: 1, count: 100)
        let second = [UInt8](repeating: 2, count: 100)
        let one = first.withUnsafeBytes { arena.copy($0) }
        let two = second.withUnsafeBytes { arena.copy($0) }
        #expect(Array(UnsafeRawBufferPointer(start: one, count: 100)) == first)
        #expect(Array(UnsafeRawBufferPointer(start: two, count: 100)) == second)
    }

    @Test func whatIsSavedIsWhatTheObjectsHeld() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Sample.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        func text(_ index: Int) -> String {
            switch index % 7 {
            case 0: ""
            case 1: "nul\u{0}inside \(index)"
            case 2: String(repeating: "é", count: 40_000 + index)  // 80 KB of UTF-8: more than a chunk
            case 3: "ascii \(index)"
            default: String(repeating: "x", count: index * 37 % 3_000)
            }
        }
        func data(_ index: Int) -> Data {
            index % 5 == 0
                ? Data() : Data((0..<(index % 3 == 0 ? 70_000 : index)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        }
        let count = 300
        for index in 0..<count {
            let sample = Sample(context: context)
            sample.id = index
            sample.text = text(index)
            sample.data = data(index)
            sample.optionalURL = index % 2 == 0 ? URL(string: "https://example.com/\(index)") : nil
        }
        try context.save()
        func check(_ expectedText: (Int) -> String) throws {
            let read = try ManagedObjectContext(try testContainer(for: Sample.self, storeURL: directory.file()))
                .fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.id)]))
            #expect(read.count == count)
            for sample in read {
                // Compared apart from the expectation, which would print both texts whole.
                let sameText = sample.text == expectedText(sample.id)
                let sameData = sample.data == data(sample.id)
                #expect(sameText, "text of \(sample.id): \(sample.text.utf8.count) bytes")
                #expect(sameData, "data of \(sample.id): \(sample.data.count) bytes")
                #expect(
                    sample.optionalURL?.absoluteString
                        == (sample.id % 2 == 0 ? "https://example.com/\(sample.id)" : nil))
            }
        }
        try check(text)
        // Updated row by row: every other text changed, some to a value larger than a chunk.
        let saved = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.id)]))
        func changed(_ index: Int) -> String {
            index % 2 == 0 ? (index % 6 == 0 ? String(repeating: "ü", count: 50_000) : "changed \(index)") : text(index)
        }
        for sample in saved where sample.id % 2 == 0 { sample.text = changed(sample.id) }
        try context.save()
        try check(changed)
    }
}
