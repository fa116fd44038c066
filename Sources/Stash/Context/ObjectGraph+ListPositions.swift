/// Ordered one-to-many lists: each member's place is kept in a column beside its foreign key
/// (`RelationshipDescription.positionColumn()`), so a list comes back after a reopen in the
/// order it was set or decoded in.
extension ObjectGraph {
    /// The changed one-to-many lists of this save: each list's members, and each member's
    /// place by position column.
    struct ListPlaces {
        struct List {
            let table: EntitySchema
            let column: String
            let members: [ManagedObject]
        }

        struct Key: Hashable {
            let object: ObjectIdentifier
            let column: Int
        }

        var lists: [List] = []
        /// Each position column as a number, by entity and then name.
        var columns: [String: [String: Int]] = [:]
        /// Each member's place, by member and column number: one flat table, so a save of
        /// a hundred thousand members costs one hash each.
        var places: [Key: Int] = [:]

        func place(of object: ManagedObject, entity: String, column: String) -> Int? {
            guard let number = columns[entity]?[column] else { return nil }
            return places[Key(object: ObjectIdentifier(object), column: number)]
        }
    }

    /// The members and places of every changed one-to-many list.
    func listPlaces() -> ListPlaces {
        var result = ListPlaces()
        for owner in listOwners.values where owner.managedObjectContext === context {
            guard owner.state == .inserted || owner.state == .persisted else { continue }
            for index in owner.changedLists.sorted() {
                let relationship = owner.entity.toManyRelationships[index]
                guard (try? relationship.joinTable()) == nil, let inverse = try? relationship.inverse(),
                    let slot = inverse.slot, let column = try? inverse.positionColumn(),
                    let table = try? context.identity.state(forType: inverse.entityType).entity.schema
                else { continue }
                let members = (owner.loadedList(index)?.objects ?? []).filter { member in
                    member.managedObjectContext === context && (member.state == .inserted || member.state == .persisted)
                        && Self.mayPoint(member, slot, at: owner)
                }
                let number: Int
                if let known = result.columns[table.name]?[column] {
                    number = known
                } else {
                    number = result.columns.values.reduce(0) { $0 + $1.count }
                    result.columns[table.name, default: [:]][column] = number
                }
                for (place, member) in members.enumerated() {
                    result.places[ListPlaces.Key(object: ObjectIdentifier(member), column: number)] = place
                }
                result.lists.append(ListPlaces.List(table: table, column: column, members: members))
            }
        }
        return result
    }

    /// The places the next save writes after its inserts: each changed list's stored
    /// members (new ones had theirs written with them, unless their insert matched a stored
    /// row); and NULL for a saved object that moved to another owner whose list is not
    /// written, so it comes last there, after the members with places.
    func positionWrites(_ lists: ListPlaces, _ references: NewRowReferences, updated: [[ManagedObject]])
        -> [PositionWrite]
    {
        var writes: [PositionWrite] = []
        for list in lists.lists {
            let members = list.members
            writes.append(
                PositionWrite(
                    table: list.table, column: list.column,
                    places: {
                        var places: [(rowID: Int64, position: Int64?)] = []
                        for (place, member) in members.enumerated() {
                            let rowID = try references.rowID(of: member)
                            if member.state == .inserted, !references.rows.wasMatched(rowID) { continue }
                            places.append((rowID, Int64(place)))
                        }
                        return places
                    }))
        }
        for (position, state) in context.identity.states.enumerated() where !updated[position].isEmpty {
            for relationship in state.entity.relationships {
                guard let slot = relationship.slot, let column = try? relationship.positionColumn() else { continue }
                let moved = updated[position].filter { object in
                    (object.changedAttributes.contains(slot) || object.restatedAttributes.contains(slot))
                        && lists.place(of: object, entity: state.entity.name, column: column) == nil
                }
                guard !moved.isEmpty else { continue }
                writes.append(
                    PositionWrite(
                        table: state.entity.schema, column: column,
                        places: { moved.compactMap { $0.rowID.map { ($0, nil) } } },
                        unlessUnchanged: (position, slot)))
            }
        }
        return writes
    }

    /// For a new object's insert: its place in the changed list its relationship with
    /// position column `column` names, or NULL. `columns` are its entity's column numbers.
    static func insertPosition(
        of object: ManagedObject, column: String, _ columns: [String: Int], _ lists: ListPlaces
    ) -> StoredValue {
        guard let number = columns[column],
            let place = lists.places[ListPlaces.Key(object: ObjectIdentifier(object), column: number)]
        else { return .null }
        return .integer(Int64(place))
    }
}
