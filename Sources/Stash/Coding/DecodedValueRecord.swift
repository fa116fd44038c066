/// What a decode set, object by object, for StashREST's conditional GET: a 304 may stand for
/// the rows of a page's last full answer only while they still hold what that answer gave
/// them, since a full answer would set those values again (a title edited locally would be
/// put back). Kept while `recordingDecodedValues(into:_:)` runs, by every object Stash's
/// decoding decodes, nested ones too; attributes the JSON did not carry (a `read` flag, a
/// note) are not recorded, so a local change to them leaves the 304 standing.
///
/// Used on its context's executor only, as the context's objects are.
// Unchecked: confined to the executor of the context it records for, as its objects are.
package final class DecodedValueRecord: @unchecked Sendable {
    private struct Entry {
        let entity: EntityDescription
        /// The attributes (and to-one relationships) some decoded object of the entity was
        /// given: what the digest reads for all of them.
        var slots: AttributeSet
        var objects: [ManagedObject]
    }

    /// By entity, in the order first seen, so that the coverage comes out the same way each
    /// time.
    private var entries: [Entry] = []
    private var positions: [ObjectIdentifier: Int] = [:]
    /// The entry noted last: objects come in runs of one entity. Through the dictionary, with
    /// three look-ups, a note cost 1.3k instructions an object (stash-bench `--rest-only`,
    /// callgrind).
    private var last: (entity: ObjectIdentifier, position: Int)?

    package init() {}

    func note(_ object: ManagedObject, of entity: EntityDescription, setting slots: AttributeSet) {
        let key = ObjectIdentifier(entity)
        let position: Int
        if let last, last.entity == key {
            position = last.position
        } else if let known = positions[key] {
            position = known
        } else {
            position = entries.count
            positions[key] = position
            entries.append(Entry(entity: entity, slots: AttributeSet(), objects: []))
        }
        last = (key, position)
        entries[position].slots = entries[position].slots.union(slots)
        entries[position].objects.append(object)
    }

    /// Records the objects a decode gave back, if Stash's decoding did not (their class has
    /// a hand-written `init(from:)`, which decodes every object of the class): what it set is
    /// unknown, so every attribute counts.
    package func noteUnrecorded(_ objects: [ManagedObject]) {
        guard let first = objects.first, positions[ObjectIdentifier(first.entity)] == nil else { return }
        for object in objects {
            let object = object.resolved
            note(object, of: object.entity, setting: .all(object.entity.attributes.count))
        }
    }

    /// Once saved: per entity, the columns recorded and the rows of the objects, sorted.
    /// Objects with no row (deleted since, or never saved) are left out.
    package func coverage() -> [ValueCoverage] {
        entries.compactMap { entry in
            let rows = Set(entry.objects.compactMap { $0.resolved.rowID }).sorted()
            guard !rows.isEmpty else { return nil }
            let columns = entry.slots.positions(below: entry.entity.attributes.count).map {
                entry.entity.schema.columns[$0].name
            }
            return ValueCoverage(entity: entry.entity.name, columns: columns, rows: rows)
        }
    }
}
