import Foundation

extension ManagedObjectContext {
    /// The objects `descriptor` describes, as the context sees them: stored rows, with this
    /// context's unsaved inserts, changes and deletions applied, in the descriptor's order.
    ///
    /// The predicate, the sort descriptors, the limit and the offset run in the store:
    ///
    /// ```sql
    /// SELECT "_pk", "id", "title", … FROM "Article" WHERE ((NOT "read") AND ("publishedAt" > ?))
    ///     ORDER BY "publishedAt" DESC, "_pk" LIMIT ? OFFSET ?
    /// ```
    ///
    /// Each row comes back as the context's one instance for it: fetching twice returns the
    /// same objects (`===`). While the entity has unsaved changes, the rows of changed and
    /// deleted objects are left out of the query, and the changed and new objects that match
    /// the predicate (evaluated in Swift) are merged in by the same order; the table is never
    /// loaded whole. A predicate or sort the store cannot evaluate is an `unsupportedQuery`
    /// error naming it.
    @inlinable
    public func fetch<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try fetch(descriptor, FetchParts(descriptor))
    }

    /// `fetch`, with the descriptor's fields as the caller read them (`FetchParts`).
    @usableFromInline
    func fetch<T: ManagedObject>(_ descriptor: FetchDescriptor<T>, _ parts: FetchParts) throws -> [T] {
        try entering {
            try throwPendingLoadError()
            let state = try self.identity.state(forType: T.self)
            let entity = state.entity
            let pending = pendingObjects(in: state)
            // `#Predicate { $0.id == id }`: the column and the value as stored, translated once.
            let equality = parts.predicate.flatMap { expression in
                parts.input.flatMap { PredicateTranslator.keyEqualityParts(expression, input: $0, for: entity) }
            }
            func query() throws -> StoreQuery {
                var predicate: QueryExpression?
                if let equality {
                    predicate = .columnEquals(equality.column, equality.value)
                } else if let expression = parts.predicate, let input = parts.input {
                    predicate = try PredicateTranslator.walk(expression, input: input, for: entity)
                }
                return try descriptor.storeQuery(parts, predicate: predicate, for: entity)
            }
            if pending.isEmpty {
                let found: [ManagedObject]
                if let equality, !parts.isSorted, !parts.isPrefetching, parts.limit == nil, parts.offset == nil {
                    // A key equality with nothing else to say: the rows whose column holds the
                    // value, read by the column (as `fetch(_:unique:_:)` reads them), with no
                    // query to make, render and free (1.9k instructions of a look-up's 41.8k).
                    found = try fetchStored(in: state) { look, body in
                        try container.store.fetch(
                            entity.schema, whereColumn: equality.column, equals: equality.value, lookingAtToken: look,
                            body)
                    }
                } else {
                    found = try fetchStored(query(), in: state)
                }
                // Numbered after the loop, not in it: stamping each object as it came cost
                // the prefetched graph fetch 1.9% more (callgrind).
                graph.noteFetched(found, in: state)
                if parts.isPrefetching { try prefetch(descriptor.prefetching, of: found, in: state) }
                // Every object of T's entity state is exactly a T (made by `T.init()` or
                // inserted as one), and an array of class references is laid out the same
                // whatever the class, so the array is taken as a `[T]`, unchecked: `as!` would
                // check each object again; `map` (unspecialized for a generic T) cost 425
                // instructions an object (8.5M of a 20,000-row fetch under callgrind), and a
                // copy through a rebound buffer 1.7k a fetch (the generic `Array.init`).
                assert(found.allSatisfy { $0 is T }, "a fetch of \(T.self) made an object of another class")
                return unsafeBitCast(found, to: [T].self)
            }
            var query = try query()
            try lookForExternalCommits()
            try refreshStaleCandidates(pending, in: state)
            query.excludedRowIDs = pending.excluded
            let objects = try fetch(descriptor, query, merging: pending, in: state)
            graph.noteFetched(objects, in: state)
            if parts.isPrefetching { try prefetch(descriptor.prefetching, of: objects, in: state) }
            return objects
        }
    }

    /// The objects of the rows `query` reads, while the entity has no unsaved changes: the
    /// store's answer as it is, the change token looked at once the read has begun. Gathered
    /// untyped and cast once by the caller: appending to a generic `[T]` looks up its type
    /// metadata on every call.
    @inline(__always)
    func fetchStored(_ query: StoreQuery, in state: EntityState) throws -> [ManagedObject] {
        try fetchStored(in: state) { look, body in try container.store.fetch(query, lookingAtToken: look, body) }
    }

    /// `fetchStored` of the rows `read` asks the store for, passing it the look at the token
    /// and what to do with each row.
    @inline(__always)
    func fetchStored(
        in state: EntityState,
        _ read: (_ look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void) throws -> Void
    ) throws -> [ManagedObject] {
        var found: [ManagedObject] = []
        let counted = container.externalCommitsCounted
        try read { token in
            lookForExternalCommits(at: token, countedBefore: counted)
        } _: { row in
            found.append(try materialize(row, in: state))
        }
        return found
    }

    /// Looks at the store's change token before a fetch: after a commit by another process,
    /// the objects the fetch meets are refreshed from their rows (`materialize`) and the
    /// to-many lists are read again when next asked for.
    func lookForExternalCommits() throws {
        noteExternalCommits(try container.externalCommitCount())
    }

    /// The look a fetch takes once its read has begun (`Store.fetch(_:lookingAtToken:_:)`):
    /// at `token`, or, for `nil`, at the container's count from before the read began
    /// (`counted`), which the store vouches is still true. Returns whether the look counted
    /// a commit the rows may predate, so that they are read again.
    func lookForExternalCommits(at token: Int64?, countedBefore counted: UInt64) -> Bool {
        let count = token.map { container.externalCommitCount(token: $0) } ?? counted
        noteExternalCommits(count)
        return count != counted
    }

    private func noteExternalCommits(_ count: UInt64) {
        guard count != externalCommitsSeen else { return }
        externalCommitsSeen = count
        graph.generation &+= 1
    }

    /// The changed objects a fetch judges in memory, refreshed from their rows first when
    /// another process committed since they were loaded (their unsaved changes stay).
    private func refreshStaleCandidates(_ pending: PendingObjects, in state: EntityState) throws {
        let stale = pending.candidates.compactMap { object in
            object.state == .persisted && object.externalCommitsSeen != externalCommitsSeen ? object.rowID : nil
        }
        guard !stale.isEmpty else { return }
        try container.store.fetch(StoreQuery(state.entity.schema, filter: .rowIDs(stale.sorted()))) { row in
            guard let object = state.byRowID[row.rowID] else { return }
            object.externalCommitsSeen = externalCommitsSeen
            try merger.take(row, into: object, in: state, keepingChanges: true)
        }
    }

    /// A fetch while the entity has unsaved changes: the store's rows, without the changed
    /// and deleted ones, merged with the changed and new objects that match, in the store's
    /// order. At most `matching.count` of those come before any row, so the store skips
    /// `offset - matching.count` rows itself: a deep page loads a page, not everything above it.
    private func fetch<T: ManagedObject>(
        _ descriptor: FetchDescriptor<T>, _ query: StoreQuery, merging pending: PendingObjects, in state: EntityState
    ) throws -> [T] {
        let precedes = { (first: T, second: T) in
            Self.precedes(first, second, by: descriptor.sortBy, insertionOrder: pending.insertionOrder)
        }
        var matching: [T] = []
        var seen = Set<ObjectIdentifier>()
        for candidate in pending.candidates where seen.insert(ObjectIdentifier(candidate)).inserted {
            let object = unsafeDowncast(candidate, to: T.self)
            if try descriptor.predicate?.evaluate(object) ?? true { matching.append(object) }
        }
        matching.sort(by: precedes)
        let skipped = max(descriptor.fetchOffset ?? 0, 0)
        let limit = descriptor.fetchLimit.map { max($0, 0) }
        func storedRows(from start: Int) throws -> [T] {
            var query = query
            query.offset = start
            query.limit = limit.map { skipped + $0 - start }
            var rows: [T] = []
            try container.store.fetch(query) { row in
                let object = try materialize(row, in: state)
                // A new object that turned out to be this row's is among the candidates.
                if !seen.contains(ObjectIdentifier(object)) { rows.append(unsafeDowncast(object, to: T.self)) }
            }
            return rows
        }
        var start = max(skipped - matching.count, 0)
        var rows = try storedRows(from: start)
        if rows.isEmpty, start > 0 {
            // Past the last row: where the objects stand among the rows is known only from the top.
            start = 0
            rows = try storedRows(from: 0)
        }
        // The position of `merged[0]` in the whole result.
        var base = 0
        var merged = matching
        if start > 0 {
            let before = matching.prefix { precedes($0, rows[0]) }.count
            base = start + before
            merged.removeFirst(before)
        }
        merged = (rows + merged).sorted(by: precedes)
        let from = min(skipped - base, merged.count)
        let to = limit.map { min(from + $0, merged.count) } ?? merged.count
        return Array(merged[from..<to])
    }

    /// How many objects `descriptor` describes: `SELECT count(*)` in the store, nothing
    /// loaded, plus the effect of the entity's unsaved changes.
    public func fetchCount<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try entering {
            try throwPendingLoadError()
            let state = try self.identity.state(forType: T.self)
            var query = try descriptor.storeQuery(for: state.entity)
            let pending = pendingObjects(in: state)
            if pending.isEmpty { return try container.store.count(query) }
            try lookForExternalCommits()
            try refreshStaleCandidates(pending, in: state)
            query.excludedRowIDs = pending.excluded
            query.limit = nil
            query.offset = nil
            var total = try container.store.count(query)
            for candidate in pending.candidates {
                if try descriptor.predicate?.evaluate(unsafeDowncast(candidate, to: T.self)) ?? true { total += 1 }
            }
            let skipped = min(max(descriptor.fetchOffset ?? 0, 0), total)
            return descriptor.fetchLimit.map { min(max($0, 0), total - skipped) } ?? total - skipped
        }
    }

    /// An entity's unsaved changes as a fetch sees them: the rows to leave out of the query
    /// (changed or deleted objects), and the objects to evaluate in Swift instead (changed
    /// and new ones, not deleted).
    struct PendingObjects {
        var excluded: [Int64] = []
        var candidates: [ManagedObject] = []
        /// The position of each new object among the inserts, for a stable order.
        var insertionOrder: [ObjectIdentifier: Int] = [:]
        var isEmpty: Bool { excluded.isEmpty && candidates.isEmpty }
    }

    func pendingObjects(in state: EntityState) -> PendingObjects {
        var pending = PendingObjects()
        if state.updated.isEmpty, state.deleted.isEmpty, state.inserted.isEmpty { return pending }
        for saved in state.updated.values where saved.object.managedObjectContext === self {
            let object = saved.object
            guard let rowID = object.rowID, !object.changedAttributes.isEmpty else { continue }
            pending.excluded.append(rowID)
            if object.state == .persisted { pending.candidates.append(object) }
        }
        for object in state.deleted.values {
            if let rowID = object.rowID { pending.excluded.append(rowID) }
        }
        for object in state.inserted where state.isLive(object) {
            pending.insertionOrder[ObjectIdentifier(object)] = pending.insertionOrder.count
            pending.candidates.append(object)
        }
        pending.excluded.sort()
        return pending
    }

    /// Whether `first` comes before `second`: by the sort descriptors, as Swift compares the
    /// values, then as the store breaks ties (by row id, in the direction of the last sort
    /// key), new objects standing where their rows will be once saved: after every stored row
    /// in the order they were inserted (before them, backwards, when the direction is reverse).
    static func precedes<T>(
        _ first: T, _ second: T, by sortBy: [SortDescriptor<T>], insertionOrder: [ObjectIdentifier: Int]
    ) -> Bool where T: ManagedObject {
        for descriptor in sortBy {
            switch descriptor.compare(first, second) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        let ascending = sortBy.last?.order != .reverse
        let firstKey = tieBreakKey(first, insertionOrder)
        let secondKey = tieBreakKey(second, insertionOrder)
        return ascending ? firstKey < secondKey : secondKey < firstKey
    }

    /// A stored object's row id, or a new object's place after every row id.
    private static func tieBreakKey(_ object: ManagedObject, _ insertionOrder: [ObjectIdentifier: Int]) -> (Int64, Int)
    {
        if let rowID = object.rowID { return (rowID, 0) }
        return (.max, insertionOrder[ObjectIdentifier(object), default: .max])
    }

    /// The context's object for the current row: the registered one if there is one, a
    /// new object that matches the row's unique value, or a new instance filled from the row.
    func materialize(_ row: any StoreRow, in state: EntityState) throws -> ManagedObject {
        let rowID = row.rowID
        if let object = state.byRowID[rowID] {
            // An object decoded for this row may not have loaded it yet: the row is here.
            if !object.unloaded.isEmpty || state.updated[ObjectIdentifier(object)]?.unverified.isEmpty == false {
                try faults.fill(object, from: row, in: state)
            }
            if object.externalCommitsSeen != externalCommitsSeen {
                // Another process committed since the object was loaded: the row is what
                // the store holds now, merged in as another context's save would be,
                // keeping this context's unsaved changes.
                object.externalCommitsSeen = externalCommitsSeen
                try merger.take(row, into: object, in: state, keepingChanges: true)
            }
            return object
        }
        let entity = state.entity
        if !state.inserted.isEmpty {
            for (index, unique) in entity.uniqueAttributes.enumerated() {
                let key = row.value(unique.index)
                if key != .null, let pending = state.lookup(index, key, in: self), pending.state == .inserted {
                    try adopt(
                        StoredRow(row, columnCount: entity.attributes.count), as: pending, state: state, unique: unique,
                        key: key)
                    return pending
                }
            }
        }
        let object = entity.type.init()
        object.cachedEntity = entity
        var column = 0
        let layout = object.layout
        do {
            // By position, not `for attribute in`: that retains and releases each attribute's
            // description, which only a column read through its codec needs (about 40
            // instructions a column).
            while column < entity.attributes.count {
                if entity.readsColumnDirectly[column],
                    layout.fields[column].access.read(
                        row, column: column, into: layout.wrapper(atSlot: column, of: object))
                {
                    column &+= 1
                    continue
                }
                object.setValue(try entity.attributes[column].codec.read(row, column: column), inSlot: column)
                column &+= 1
            }
        } catch var error as StashError {
            error.entity = entity.name
            error.attribute = error.attribute ?? entity.attributes[column].name
            throw error
        }
        registerPersisted(object, rowID: rowID, in: state)
        return object
    }

    /// A new, unsaved object turns out to have a stored row (same unique value): it becomes
    /// that row's object, keeping the values it was given as a stand-in would
    /// (`UniqueResolver.standIn`): as its own `UniqueMatch` says, else under `.incomingWins`,
    /// and never the defaults `awakeFromInsert()` set. Deciding by the policy alone, a fetch
    /// that met the row first wrote an `.adopt` object's placeholders over it.
    private func adopt(
        _ row: StoredRow, as object: ManagedObject, state: EntityState, unique: AttributeDescription, key: StoredValue
    ) throws {
        if object.uniqueMatch == nil, mergePolicy.kind == .fail {
            throw UniqueResolver.conflict(state.entity, unique, key)
        }
        // A decode that fails after this makes it the new object it was (`ChangeJournal`).
        tracker.journal?.recordChange(object, in: state)
        let given =
            resolver.upsertsGivenValues(of: object)
            ? object.changedAttributes.subtracting(tracker.defaultsFromAwake(of: object)) : AttributeSet()
        // The row's value is kept for the slots where the object keeps its own; the others
        // hold the row's value, which is then their saved value as it is.
        var saved = SavedValues()
        for attribute in state.entity.attributes {
            let stored = try row.value(of: attribute, in: state.entity)
            if given.contains(attribute.index) {
                saved.set(stored, atSlot: attribute.index)
            } else {
                object.setPrimitiveValue(stored, of: attribute)
            }
        }
        object.changedAttributes = given
        registerPersisted(object, rowID: row.rowID, in: state)
        if !object.changedAttributes.isEmpty {
            state.updated[ObjectIdentifier(object)] = SavedState(
                object: object, values: saved, unloaded: AttributeSet())
        }
    }
}

/// A stored row's values, copied out of the store's row.
struct StoredRow {
    let rowID: Int64
    /// The attribute columns, in entity order.
    let columns: [StoredValue]

    init(_ row: any StoreRow, columnCount: Int) {
        rowID = row.rowID
        columns = (0..<columnCount).map { row.value($0) }
    }

    func value(of attribute: AttributeDescription, in entity: EntityDescription) throws -> Any {
        try inPlace(entity, attribute) { try attribute.codec.value(from: columns[attribute.index]) }
    }
}
