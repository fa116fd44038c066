/// What an object that takes another's values in a save (a stand-in's holder, a duplicate
/// insert's survivor) held before, for the save's undo if it fails: its values, changes and
/// restated attributes, the attributes it had not loaded, its saved state, the other
/// processes' commits it had taken in (one taken in during the save is taken in again), and
/// whether it stood in for another (a second unique value set by a merge can make it one).
/// Without `unloaded`, a partly loaded holder read the attributes it never loaded as `nil`
/// after the undo, and a later `.overwrite` save wrote NULL over them.
struct HolderSnapshot {
    private let object: ManagedObject
    private let values: ContiguousArray<Any?>
    private let changedAttributes: AttributeSet
    private let restatedAttributes: AttributeSet
    private let unloaded: AttributeSet
    private let saved: SavedState?
    private let externalCommitsSeen: UInt64
    private let lifecycle: LifecycleState
    private let standIn: ManagedObject?

    init(of object: ManagedObject, in state: EntityState) {
        self.object = object
        values = object.values
        changedAttributes = object.changedAttributes
        restatedAttributes = object.restatedAttributes
        unloaded = object.unloaded
        saved = state.updated[ObjectIdentifier(object)]
        externalCommitsSeen = object.externalCommitsSeen
        lifecycle = object.state
        standIn = object.standIn
    }

    /// Puts the object back as it was.
    func restore(in state: EntityState) {
        object.values = values
        object.changedAttributes = changedAttributes
        object.restatedAttributes = restatedAttributes
        object.unloaded = unloaded
        state.updated[ObjectIdentifier(object)] = saved
        object.externalCommitsSeen = externalCommitsSeen
        if object.standIn !== standIn {
            object.standIn = standIn
            object.state = lifecycle
            if standIn == nil { state.standIns.forget(object) }
        }
    }
}
