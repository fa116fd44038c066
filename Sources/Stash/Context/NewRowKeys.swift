/// The unique values of a batch's new objects (`decodeAndSave`), per entity and unique
/// attribute, worked out once for two uses: before the write, whether the context's key
/// indexes prove that no stored row holds any of them, so the store need not look
/// (`EntityChanges.matchesStoredRows`); after it, the rows the index learns, which it would
/// otherwise read back on the next batch's first miss.
///
/// Only inside a `Store.inOneTransaction` that excludes other writers (SQLite's): there no one
/// else can commit between the indexes' reading of the column and the write, which is what
/// makes their answer as good as the store's. On PostgreSQL other writers go on, and the
/// store always looks.
struct NewRowKeys {
    private let objects: [[ManagedObject]]
    /// By entity position, unique attribute, then object: `nil` for a null or unstorable value.
    private let keys: [[[StoredValue?]]]

    init(inserted objects: [[ManagedObject]], states: [EntityState]) {
        self.objects = objects
        keys = zip(objects, states).map { objects, state in
            state.entity.uniqueAttributes.enumerated().map { index, unique in
                guard state.storedKeys[index].holdsWholeColumn else { return [] }
                return objects.map { object in
                    guard let value = object.value(of: unique), let key = try? unique.codec.storedValue(for: value),
                        key != .null
                    else { return nil }
                    return key
                }
            }
        }
    }

    /// Whether the indexes of `state`'s entity, true for `generation` and `token`, hold every
    /// unique column whole and none of the new objects' values there.
    func areNew(at position: Int, in state: EntityState, generation: UInt64, token: Int64) -> Bool {
        guard !objects[position].isEmpty, !state.entity.uniqueAttributes.isEmpty else { return false }
        return state.storedKeys.indices.allSatisfy { index in
            keys[position][index].count == objects[position].count
                && state.storedKeys[index].holdsNone(
                    of: keys[position][index].lazy.compactMap { $0 }, generation: generation, token: token)
        }
    }

    /// The new rows' values in the `index`th unique column of the entity at `position`, with
    /// their row ids: once the save gave the objects their rows.
    func rows(at position: Int, unique index: Int) -> [(StoredValue, Int64)] {
        guard index < keys[position].count else { return [] }
        return zip(keys[position][index], objects[position]).compactMap { key, object in
            // `resolved`: one saved onto a row with an object already stands in for that object.
            guard let key, let rowID = object.resolved.rowID else { return nil }
            return (key, rowID)
        }
    }
}
