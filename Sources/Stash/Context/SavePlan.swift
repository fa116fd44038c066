/// The objects behind a change set, per entity in its order, to apply the store's
/// answer to once the transaction has committed.
struct SavePlan {
    var deleted: [[ManagedObject]] = []
    var updated: [[ManagedObject]] = []
    var inserted: [[ManagedObject]] = []
    /// The owner and list of each of the change set's `joinWrites`.
    var joinLists: [(ManagedObject, Int)] = []
}
