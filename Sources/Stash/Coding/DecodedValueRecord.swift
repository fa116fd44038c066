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

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// The entities in the order first seen, so that the coverage comes out the same way
    /// each time.
    private var order: [ObjectIdentifier] = []

    package init() {}

    func note(_ object: ManagedObject, of entity: EntityDescription, setting slots: AttributeSet) {
        let key = ObjectIdentifier(entity)
        if entries[key] == nil {
            entries[key] = Entry(entity: entity, slots: slots, objects: [object])
            order.append(key)
            return
        }
        entries[key]!.slots = entries[key]!.slots.union(slots)
        entries[key]!.objects.append(object)
    }

    /// Records the objects a decode gave back, if Stash's decoding did not (their class has
    /// a hand-written `init(from:)`, which decodes every object of the class): what it set is
    /// unknown, so every attribute counts.
    package func noteUnrecorded(_ objects: [ManagedObject]) {
        guard let first = objects.first, entries[ObjectIdentifier(first.entity)] == nil else { return }
        for object in objects {
            let object = object.resolved
            note(object, of: object.entity, setting: .all(object.entity.attributes.count))
        }
    }

    /// Once saved: per entity, the columns recorded and the rows of the objects, sorted.
    /// Objects with no row (deleted since, or never saved) are left out.
    package func coverage() -> [ValueCoverage] {
        order.compactMap { key in
            guard let entry = entries[key] else { return nil }
            let rows = Set(entry.objects.compactMap { $0.resolved.rowID }).sorted()
            guard !rows.isEmpty else { return nil }
            let columns = entry.slots.positions(below: entry.entity.attributes.count).map {
                entry.entity.schema.columns[$0].name
            }
            return ValueCoverage(entity: entry.entity.name, columns: columns, rows: rows)
        }
    }
}
