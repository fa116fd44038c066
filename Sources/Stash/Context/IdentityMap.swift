/// The context's part that knows which objects it holds: one `EntityState` per entity of the
/// container (each with its objects by row, its new objects and its unique index), found by
/// class in one look-up, and the numbering of new objects' temporary IDs.
///
/// It keeps no rule of its own about changes or saves; the context and its other parts ask it
/// which state an object belongs to. One per context, used from the context's isolation only.
final class IdentityMap {
    /// Per entity, in the container's order: the order `save()` writes in.
    let states: [EntityState]
    /// Each entity's position in `states`, by its class.
    private let positions: [ObjectIdentifier: Int]
    /// Each state's class, in the order of `states`.
    private let types: [ObjectIdentifier]
    /// The temporary ID the next new object takes (its `ObjectID` until its first save);
    /// numbers are never reused within a context.
    @exclusivity(unchecked) private(set) var nextTemporaryID: UInt64 = 1

    /// `positions` gives each entity's place in `entities` by class (the container's
    /// `positionsByType`, shared, not rebuilt per context).
    init(_ entities: [EntityDescription], positions: [ObjectIdentifier: Int], departures: DepartureSignal) {
        states = entities.map { EntityState(entity: $0, departures: departures) }
        types = entities.map { ObjectIdentifier($0.type) }
        self.positions = positions
    }

    /// The state of one of the container's entities.
    func state(for entity: EntityDescription) -> EntityState {
        states[position(ofType: ObjectIdentifier(entity.type))!]
    }

    /// The state of `type`'s entity, or `unknownEntity` if the container does not store it.
    /// One look-up by class: every fetch and every read of a related object not held asks.
    func state(forType type: ManagedObject.Type) throws -> EntityState {
        guard let position = position(ofType: ObjectIdentifier(type)) else {
            throw StashError.notAModel(type, of: states.map(\.entity.name))
        }
        return states[position]
    }

    /// The object this context holds for row `rowID` of the entity of class `type`, if any:
    /// found in the entity's table of objects by row, which has a lock of its own, so the read
    /// enters nothing (see `ManagedObject.toOneTarget`). The table is borrowed, not retained.
    @inline(__always)
    func heldObject(forRow rowID: Int64, ofType type: ObjectIdentifier) -> ManagedObject? {
        guard let position = position(ofType: type) else { return nil }
        return Unmanaged.passUnretained(states[position].byRowID)._withUnsafeGuaranteedRef { $0[rowID] }
    }

    /// Where the entity of class `wanted` stands in `states`. A container of a few entities
    /// is scanned, where hashing the class cost about 150 instructions a read of a related
    /// object and twice that an object's first change (stash-bench's graph fetch and edit,
    /// callgrind).
    @inline(__always)
    private func position(ofType wanted: ObjectIdentifier) -> Int? {
        guard types.count <= Self.scannedEntities else { return positions[wanted] }
        var position = 0
        while position < types.count {
            if types[position] == wanted { return position }
            position &+= 1
        }
        return nil
    }

    /// Up to how many entities `position(ofType:)` scans `types` rather than hash.
    private static let scannedEntities = 16

    /// The state of the entity named `name`, if the container has it.
    func state(named name: String) -> EntityState? {
        states.first { $0.entity.name == name }
    }

    /// Where `state` stands in `states` (and in a `SaveNote`'s entities).
    func position(of state: EntityState) -> Int {
        position(ofType: ObjectIdentifier(state.entity.type))!
    }

    /// A temporary ID no object of this context had.
    func takeTemporaryID() -> UInt64 {
        defer { nextTemporaryID += 1 }
        return nextTemporaryID
    }

    /// The object held for `objectID`: a live new object by its temporary ID, or the object of
    /// its row unless the row is gone. Nothing is read from the store.
    func registeredObject(for objectID: ObjectID) -> ManagedObject? {
        guard let state = state(named: objectID.entityName) else { return nil }
        guard let rowID = objectID.rowID else {
            return state.inserted.first { state.isLive($0) && $0.temporaryID == objectID.temporaryID }
        }
        return registeredObject(forRow: rowID, in: state)
    }

    /// The object of `type` held for stored row `rowID`, unless the row is gone; nothing is read.
    func registeredObject(forRow rowID: Int64, of type: ManagedObject.Type) -> ManagedObject? {
        (try? state(forType: type)).flatMap { registeredObject(forRow: rowID, in: $0) }
    }

    private func registeredObject(forRow rowID: Int64, in state: EntityState) -> ManagedObject? {
        guard let object = state.byRowID[rowID], !object.rowIsGone else { return nil }
        return object
    }

    /// How many objects of stored rows are held now, alive (see `RegisteredObjects`).
    var registeredObjectCount: Int {
        states.reduce(0) { $0 + $1.byRowID.count }
    }

    /// How many entries the queues of unsaved inserts, changes and deletes hold (a new object
    /// deleted before its save stays queued until then): compared before and after the
    /// `willSave()` hooks, to see whether one changed anything.
    var pendingChangeCount: Int {
        states.reduce(0) { $0 + $1.inserted.count + $1.updated.count + $1.deleted.count }
    }
}
