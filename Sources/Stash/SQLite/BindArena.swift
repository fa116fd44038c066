/// Memory that bound text and blobs are copied into, so that SQLite can take them as they
/// are (`SQLITE_STATIC`) instead of copying each into an allocation of its own and freeing it
/// at the next bind: a save's inserts bind every text column of every row (malloc and free
/// were about 90M of stash-bench's 469M-instruction import write at 20,000 records).
///
/// The copies stay where they are until `rewind()`; a statement bound from the arena must be
/// stepped, then reset or bound again, before that (`SQLiteStatement.bind(_:at:copyingInto:)`).
/// It grows by chunks and never moves one, so what is bound stays valid as more is copied.
///
/// Unchecked, its fields: one save's writer uses an arena on its one thread, and the runtime's
/// check cost about 85 instructions a copy (see docs/ARCHITECTURE.md).
final class BindArena {
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// The chunk being filled, and how much of it is used.
    @exclusivity(unchecked) private var current = 0
    @exclusivity(unchecked) private var used = 0

    private static let chunkSize = 64 * 1024

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// A copy of `bytes` that stays until `rewind()`.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        if current == chunks.count || chunks[current].count - used < bytes.count {
            nextChunk(holding: bytes.count)
        }
        let start = chunks[current].baseAddress! + used
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(start)
    }

    /// Lets the copies go: the chunks are filled again from the first.
    func rewind() {
        current = 0
        used = 0
    }

    /// Moves to a chunk with room for `count` bytes: the next one if it has it, else a new
    /// one put in its place (one larger than a chunk holds a single value of its size).
    private func nextChunk(holding count: Int) {
        if current < chunks.count, used > 0 { current += 1 }
        used = 0
        while current < chunks.count, chunks[current].count < count { current += 1 }
        if current == chunks.count {
            chunks.append(
                .allocate(byteCount: max(Self.chunkSize, count), alignment: MemoryLayout<UInt64>.alignment))
        }
    }
}
