/// For one unique attribute of an entity: which stored row holds each value, so that
/// decoding finds the rows a context has not loaded without a query per decoded object.
///
/// It starts empty and learns lazily. An empty table needs one `count` query. A table of up
/// to `loadAllBelow` rows is read at once (`SELECT "_pk", "id" FROM "Post"`), one query; a
/// bigger one is asked one value at a time for the first `pointLookups` values (a decode of a
/// few objects into a big store stays cheap) and then read at once. Rows this context holds
/// are found through its own unique index first, so this only has to know the others.
///
/// It stays true to the store: a save by another context of the container (the container's
/// save generation moved) makes it start over, and so does a commit by another process (the
/// store's change token moved), asked at most every `checkInterval` while decoding goes on
/// (asking for every object would be a query per object); rows this context deletes are
/// remembered as gone. A row another process inserted in between is still found at save,
/// which matches new objects against stored rows.
final class StoredKeyIndex {
    /// Tables up to this size are read whole on the first lookup.
    static let loadAllBelow = 10_000
    /// Values asked one at a time in a bigger table before it is read whole.
    static let pointLookups = 256
    /// How long the store's change token is trusted before it is asked again.
    static let checkInterval = Duration.milliseconds(10)

    private enum Mode {
        case unknown
        case askingEach(remaining: Int)
        case loaded([StoredValue: Int64])
    }

    // Unchecked, these: the index is its context's (see `EntityState`), and the runtime's
    // check cost about 170 instructions a look-up (see docs/ARCHITECTURE.md).
    @exclusivity(unchecked) private var mode = Mode.unknown
    /// Rows this context inserted since the index read the column, whose values it has not
    /// read yet (see `didSave`).
    @exclusivity(unchecked) private var pendingRows: [Int64] = []
    /// Rows this context deleted since the index learned them.
    @exclusivity(unchecked) private var deleted = Set<Int64>()
    /// The container's save generation the index is true for.
    @exclusivity(unchecked) private var generation: UInt64 = 0
    /// The store's change token when the index was started, and when it was last asked.
    @exclusivity(unchecked) private var token: Int64 = 0
    @exclusivity(unchecked) private var checked = ContinuousClock.now

    /// The row that holds `key` in the column at `column`, if any.
    func rowID(for key: StoredValue, column: Int, of entity: EntitySchema, in container: PersistentContainer)
        throws -> Int64?
    {
        let current = container.saveGeneration
        if current != generation {
            forget(generation: current)
        } else if !isUnknown {
            let now = ContinuousClock.now
            if now - checked >= Self.checkInterval {
                checked = now
                if try container.store.changeToken() != token { forget(generation: current) }
            }
        }
        if isUnknown {
            token = try container.store.changeToken()
            checked = ContinuousClock.now
            let rows = try container.store.count(StoreQuery(entity))
            if rows == 0 {
                mode = .loaded([:])
            } else if rows <= Self.loadAllBelow {
                mode = .loaded(try loadAll(column, of: entity, from: container.store))
            } else {
                mode = .askingEach(remaining: Self.pointLookups)
            }
        }
        let found: Int64?
        switch mode {
        case .unknown:
            found = nil
        case .loaded(let rows):
            if let row = rows[key] {
                found = row
            } else if !pendingRows.isEmpty {
                found = try readPendingRows(column, of: entity, from: container.store, then: key)
            } else {
                found = nil
            }
        case .askingEach(let remaining):
            if remaining > 0 {
                mode = .askingEach(remaining: remaining - 1)
                found = try lookUp(key, column, of: entity, in: container.store)
            } else {
                let rows = try loadAll(column, of: entity, from: container.store)
                mode = .loaded(rows)
                found = rows[key]
            }
        }
        guard let found, !deleted.contains(found) else { return nil }
        return found
    }

    private var isUnknown: Bool {
        if case .unknown = mode { return true }
        return false
    }

    /// Whether the index holds the whole column: then a save must tell it the rows it
    /// inserted (asking the store one value at a time finds them anyway).
    var holdsWholeColumn: Bool {
        if case .loaded = mode { return true }
        return false
    }

    /// After a save of this context: the index stays true if no other save came between, and
    /// learns which rows the save deleted and inserted. A save that moved a row to another
    /// value (`movingKeys`) makes it start over: the row's old value is not known here.
    /// `token` is the store's change token after the save, which the save itself moved.
    ///
    /// The rows a context inserts were once left out, since its own unique index finds their
    /// objects; but a context lets go of objects nobody holds, and decoding such a row's
    /// value again then made a new object that the save wrote over the row (5,000 unchanged
    /// rows rewritten and reported updated), instead of one compared with it. Their values
    /// are read when a lookup first misses (`pendingRows`): an import that decodes nothing
    /// after its save pays nothing for them.
    ///
    /// `keys`, when given, are the inserted rows' values in this column, known to the save
    /// (a batch of `decodeAndSave`, after which decoding goes on): they are added at once.
    func didSave(
        deleting rowIDs: some Sequence<Int64>, inserting inserted: [Int64], keys: [(StoredValue, Int64)]? = nil,
        movingKeys: Bool, generationBefore: UInt64, after: UInt64, token: Int64
    ) {
        guard generation == generationBefore, !movingKeys else { return forget(generation: after) }
        // A deleted row's id given to a new row would make a value the index knew for the
        // deleted row name the new one, so the index starts over. Stash's `AUTOINCREMENT` keys
        // are never given again; this stays for a table made otherwise.
        if !deleted.isEmpty, inserted.contains(where: deleted.contains) { return forget(generation: after) }
        generation = after
        self.token = token
        deleted.formUnion(rowIDs)
        guard case .loaded(var rows) = mode else { return }
        guard let keys else {
            pendingRows += inserted
            return
        }
        mode = .unknown  // so that `rows` is the dictionary's only reference, changed in place
        for (key, rowID) in keys { rows[key] = rowID }
        mode = .loaded(rows)
    }

    /// Starts over: the next lookup learns the store afresh.
    func forget(generation: UInt64) {
        mode = .unknown
        pendingRows.removeAll()
        deleted.removeAll()
        self.generation = generation
    }

    /// Whether the index, true for the container's save `generation` and the store's change
    /// `token`, holds the whole column and no row of it holds any of `keys` (a row this
    /// context deleted holds none). `false` whenever it cannot tell.
    func holdsNone(of keys: some Sequence<StoredValue>, generation current: UInt64, token: Int64) -> Bool {
        guard generation == current, self.token == token, pendingRows.isEmpty, case .loaded(let rows) = mode else {
            return false
        }
        for key in keys {
            if let row = rows[key], !deleted.contains(row) { return false }
        }
        return true
    }

    /// Adds the values of the rows this context inserted since the column was read; answers
    /// the row that holds `key` now.
    private func readPendingRows(_ column: Int, of entity: EntitySchema, from store: any Store, then key: StoredValue)
        throws -> Int64?
    {
        guard case .loaded(var rows) = mode else { return nil }
        mode = .unknown  // so that `rows` is the dictionary's only reference, changed in place
        defer { mode = .loaded(rows) }
        try store.fetch(StoreQuery(entity, columns: [column], filter: .rowIDs(pendingRows.sorted()))) { row in
            let value = row.value(0)
            if value != .null { rows[value] = row.rowID }
        }
        pendingRows.removeAll()
        return rows[key]
    }

    private func loadAll(_ column: Int, of entity: EntitySchema, from store: any Store) throws -> [StoredValue: Int64] {
        var rows: [StoredValue: Int64] = [:]
        try store.fetch(StoreQuery(entity, columns: [column])) { row in
            let value = row.value(0)
            if value != .null { rows[value] = row.rowID }
        }
        return rows
    }

    private func lookUp(_ key: StoredValue, _ column: Int, of entity: EntitySchema, in store: any Store) throws
        -> Int64?
    {
        var found: Int64?
        try store.fetch(StoreQuery(entity, columns: [column], filter: .values(column: column, [key]))) { row in
            found = row.rowID
        }
        return found
    }
}
