/// What one owner's many-to-many list changes in its join rows, given the rows as read
/// inside the save's transaction: the same for every store, which only reads and runs it
/// (see `JoinWrite`, `SQLiteStore.writeJoin`, `PostgresStore.writeJoin`).
///
/// Links removed in the context are deleted; links added are inserted; links whose place
/// changed (or stored twice) are moved. A member the context read that is no longer stored
/// was removed by another writer and stays out; a stored member the context never read was
/// added by another writer and is kept, after the written ones.
package struct JoinPlan {
    /// Stored members to delete.
    package private(set) var deletes: [Int64] = []
    /// Members to insert, with their place.
    package private(set) var inserts: [(member: Int64, place: Int64)] = []
    /// Stored members whose place is to be written.
    package private(set) var moves: [(member: Int64, place: Int64)] = []
    /// Whether the stored list after the writes is not the one the context wrote.
    package let differsFromWritten: Bool

    /// `stored`: the join rows read for the owner, as (member, place), ordered by place.
    package init(_ write: JoinWrite, related: [Int64], stored: [(member: Int64, place: Int64)]) {
        // Each stored link's place (the first, should the store hold a link twice), in order.
        var places: [Int64: Int64] = [:]
        var storedOrder: [Int64] = []
        var twice = Set<Int64>()
        for (member, place) in stored {
            if places[member] == nil {
                places[member] = place
                storedOrder.append(member)
            } else {
                twice.insert(member)
            }
        }
        let wanted = Set(related)
        let removed = (write.known ?? Set(storedOrder)).subtracting(wanted)
        var final = related.filter { places[$0] != nil || write.known?.contains($0) != true }
        final += storedOrder.filter { !wanted.contains($0) && !removed.contains($0) }
        deletes = storedOrder.filter { removed.contains($0) }
        for (offset, member) in final.enumerated() {
            let place = Int64(offset)
            if let storedPlace = places[member] {
                if storedPlace != place || twice.contains(member) { moves.append((member, place)) }
            } else {
                inserts.append((member, place))
            }
        }
        differsFromWritten = final != related
    }
}
