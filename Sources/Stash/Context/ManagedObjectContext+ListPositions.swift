/// Ordered one-to-many lists: each member's place is kept in a column beside its foreign key
/// (`RelationshipDescription.positionColumn()`), so a list comes back after a reopen in the
/// order it was set or decoded in.
extension ManagedObjectContext {
    /// The places the next save writes: each changed one-to-many list's members, by index;
    /// and NULL for a saved object that moved to another owner whose list is not written,
    /// so it comes last there, after the members with places.
    func positionWrites(_ references: NewRowReferences, updated: [[ManagedObject]]) -> [PositionWrite] {
        var writes: [PositionWrite] = []
        var placed: [String: Set<ObjectIdentifier>] = [:]
        for owner in listOwners.values where owner.managedObjectContext === self {
            guard owner.state == .inserted || owner.state == .persisted else { continue }
            for index in owner.changedLists.sorted() {
                let relationship = owner.entity.toManyRelationships[index]
                guard (try? relationship.joinTable()) == nil, let inverse = try? relationship.inverse(),
                    let slot = inverse.slot, let column = try? inverse.positionColumn(),
                    let table = try? state(forType: inverse.entityType).entity.schema
                else { continue }
                let members = (owner.loadedList(index)?.objects ?? []).filter { member in
                    member.managedObjectContext === self && (member.state == .inserted || member.state == .persisted)
                        && Self.mayPoint(member, slot, at: owner)
                }
                let key = "\(table.name).\(column)"
                for member in members { placed[key, default: []].insert(ObjectIdentifier(member)) }
                writes.append(
                    PositionWrite(
                        table: table, column: column,
                        places: {
                            try members.enumerated().map { (try references.rowID(of: $1), Int64($0)) }
                        }))
            }
        }
        for (position, state) in states.enumerated() where !updated[position].isEmpty {
            for relationship in state.entity.relationships {
                guard let slot = relationship.slot, let column = try? relationship.positionColumn() else { continue }
                let key = "\(state.entity.name).\(column)"
                let moved = updated[position].filter { object in
                    object.changedAttributes.contains(slot) && placed[key]?.contains(ObjectIdentifier(object)) != true
                }
                guard !moved.isEmpty else { continue }
                writes.append(
                    PositionWrite(
                        table: state.entity.schema, column: column,
                        places: { moved.compactMap { $0.rowID.map { ($0, nil) } } }))
            }
        }
        return writes
    }
}
