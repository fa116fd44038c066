/// What StashREST keeps beside a page's rows to tell later whether a 304, or the same answer
/// again, still stands for them: their identity and the values the answer set, as digests
/// (`RowDigest`) of what the store holds.
extension PersistentContainer {
    /// Two digests, reading each entity's rows once for all of them: the pages of one import,
    /// or one page's both.
    ///
    /// - The identity of each list of rows, in order: a digest of their row ids and unique
    ///   values (single and composite), or `nil` when one of them is gone. Kept beside row ids
    ///   that must still name the same objects later (a 304's): a row deleted, and its id
    ///   taken by another (Stash's keys are `AUTOINCREMENT`, but a row written by hand may
    ///   name its own `_pk`) or its
    ///   unique value moved to another row, changes the digest where a count would not.
    /// - For each coverage, a digest of what its rows hold now in its columns, or `nil` when
    ///   one of the rows is gone or a column is no longer there: whether they still hold what
    ///   the full answer gave them.
    ///
    /// Read one page and one digest at a time, a record cost a 100,000-row import 0.17 s and
    /// 1,000 pages of 100 rows 0.25 ms a page.
    package func pageDigests(identities lists: [[ObjectID]], coverages: [[ValueCoverage]]) throws -> (
        identities: [UInt64?], values: [UInt64?]
    ) {
        pageDigestReads.add(1, ordering: .relaxed)
        var reads: [String: EntityRead] = [:]
        // Row ids come in runs of one entity: one look-up of the entity a run (two a row, by
        // name, cost 700 instructions).
        var run: (entity: String, rows: [Int64])?
        func endRun() {
            guard let run else { return }
            reads[run.entity, default: EntityRead()].rows += run.rows
            reads[run.entity]!.identity = true
        }
        for objectID in lists.joined() {
            guard let rowID = objectID.rowID else { continue }
            if run?.entity == objectID.entityName {
                run!.rows.append(rowID)
            } else {
                endRun()
                run = (objectID.entityName, [rowID])
            }
        }
        endRun()
        for covered in coverages.joined() {
            reads[covered.entity, default: EntityRead()].rows += covered.rows
            reads[covered.entity]!.columnSets.insert(covered.columns)
        }
        var identityRows: [String: RowDigestTable] = [:]
        var valueRows: [ColumnSet: RowDigestTable] = [:]
        for (name, read) in reads {
            guard let schema = entities.first(where: { $0.name == name })?.schema else { continue }
            // The column sets each row is digested by: its unique columns, and each set of
            // columns a coverage names (one that names a column no longer there is left out,
            // and its coverage answers nil).
            var sets: [(key: ColumnSet?, columns: [Int])] = []
            if read.identity {
                sets.append((nil, Array(Set(schema.uniqueColumns + schema.uniqueCompounds.flatMap { $0 })).sorted()))
            }
            for names in read.columnSets {
                let columns = names.compactMap { name in schema.columns.firstIndex { $0.name == name } }
                if columns.count == names.count { sets.append((ColumnSet(entity: name, names: names), columns)) }
            }
            let selected = Array(Set(sets.flatMap(\.columns))).sorted()
            let place = Dictionary(uniqueKeysWithValues: selected.enumerated().map { ($1, $0) })
            let placed = sets.map { set in set.columns.map { place[$0]! } }
            let rows = read.sortedRows
            var found = Array(repeating: RowDigestTable(rowIDs: rows), count: sets.count)
            try store.fetch(StoreQuery(schema, columns: selected, filter: .rowIDs(rows))) { row in
                let rowID = row.rowID
                for (index, positions) in placed.enumerated() {
                    var digest = RowDigest()
                    for position in positions { row.digest(position, into: &digest) }
                    found[index].set(digest.value, for: rowID)
                }
            }
            for (index, set) in sets.enumerated() {
                if let key = set.key { valueRows[key] = found[index] } else { identityRows[name] = found[index] }
            }
        }
        let identities = lists.map { objectIDs -> UInt64? in
            var digest = RowDigest()
            // The rows of a run of one entity looked up in its table, found once a run.
            var current: (entity: String, rows: RowDigestTable?)?
            for objectID in objectIDs {
                if current?.entity != objectID.entityName {
                    current = (objectID.entityName, identityRows[objectID.entityName])
                }
                guard let rowID = objectID.rowID, let row = current?.rows?.digest(of: rowID) else {
                    return nil
                }
                digest.add(.text(objectID.entityName))
                digest.add(.integer(rowID))
                digest.add(.integer(Int64(bitPattern: row)))
            }
            return digest.value
        }
        let values = coverages.map { coverage -> UInt64? in
            var digest = RowDigest()
            for covered in coverage {
                guard var rows = valueRows[ColumnSet(entity: covered.entity, names: covered.columns)] else {
                    return nil
                }
                digest.add(.text(covered.entity))
                for name in covered.columns { digest.add(.text(name)) }
                for rowID in covered.rows {
                    // With no column, only whether the row is there.
                    guard let values = rows.digest(of: rowID) else { return nil }
                    digest.add(.integer(rowID))
                    if !covered.columns.isEmpty { digest.add(.integer(Int64(bitPattern: values))) }
                }
            }
            return digest.value
        }
        return (identities, values)
    }

    /// Where the store stands now, for a read about to be made; `nil` for a store whose
    /// change token misses some commits (see `StoreStamp`).
    package func storeStamp() throws -> StoreStamp? {
        guard store.changeTokenSeesEveryCommit else { return nil }
        let generation = saveGeneration
        return StoreStamp(generation: generation, token: try store.changeToken())
    }

    /// Notes that the rows of the page kept as `page` held, when the store stood at `stamp`,
    /// what its record's `identity` and `values` digests say.
    package func notePageVerified(_ page: String, identity: UInt64, values: UInt64, at stamp: StoreStamp) {
        verifiedPages.withLock { $0.note(page, .init(identity: identity, values: values), at: stamp) }
    }

    /// Whether the rows of the page kept as `page` were found holding what `identity` and
    /// `values` say, and nothing has been committed to the store since: then
    /// `pageDigests` would answer the same, without reading them.
    package func pageIsVerified(_ page: String, identity: UInt64, values: UInt64) throws -> Bool {
        guard let stamp = try storeStamp() else { return false }
        return verifiedPages.withLock { $0.holds(page, .init(identity: identity, values: values), at: stamp) }
    }

    /// What to read of one entity's rows.
    private struct EntityRead {
        /// As listed, repeats and all.
        var rows: [Int64] = []
        /// Ascending, each once.
        var sortedRows: [Int64] { rows.ascendingOnce() }
        /// Whether a list names some of them: their unique columns are digested.
        var identity = false
        /// The sets of columns coverages name.
        var columnSets: Set<[String]> = []
    }

    /// One entity's columns, by name, as a coverage names them.
    private struct ColumnSet: Hashable {
        let entity: String
        let names: [String]
    }
}
