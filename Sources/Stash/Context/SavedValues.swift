/// What a saved object's attributes held before this context changed them: each value is
/// kept as its slot is first written after the object was loaded or last saved
/// (`ChangeTracker.objectWillChange(_:atSlot:)`), so a slot not kept still holds the value
/// it was saved with. `rollback()` puts the kept values back; a save that does not let this
/// context win expects the row to hold them (`SavePlanner`).
///
/// Kept lazily: a snapshot of every value at an object's first change boxed all of them and
/// freed them again, about 2.2k instructions of an edited object's 21k (stash-bench's edit
/// span under callgrind), where an edit writes one or two. An array, not values inline: the
/// save's planning copies each object's `SavedState`, and an `Any` inline made every copy
/// cost a call through its value witnesses.
struct SavedValues {
    private var kept: ContiguousArray<(slot: Int, value: Any?)> = []

    /// The value `slot` was saved with: the kept one, else what `object` holds.
    func value(atSlot slot: Int, of object: ManagedObject) -> Any? {
        for entry in kept where entry.slot == slot { return entry.value }
        return object.value(atSlot: slot)
    }

    /// The value kept for `slot`, if one is: `.some(nil)` for a slot that was not loaded.
    func keptValue(atSlot slot: Int) -> Any?? {
        for entry in kept where entry.slot == slot { return .some(entry.value) }
        return .none
    }

    /// Keeps what `object` holds at `slot` now, unless a value is kept for it already.
    mutating func keepValue(atSlot slot: Int, of object: ManagedObject) {
        guard !kept.contains(where: { $0.slot == slot }) else { return }
        kept.append((slot, object.value(atSlot: slot)))
    }

    /// Records `value` as what `slot` was saved with (a merge or a fault saw the row).
    mutating func set(_ value: Any?, atSlot slot: Int) {
        if let position = kept.firstIndex(where: { $0.slot == slot }) {
            kept[position].value = value
        } else {
            kept.append((slot, value))
        }
    }

    /// Makes `value` what `slot` was saved with if a value is kept for it; a slot not kept
    /// takes the value in the object, which the caller writes.
    mutating func replaceKept(with value: Any?, atSlot slot: Int) {
        guard let position = kept.firstIndex(where: { $0.slot == slot }) else { return }
        kept[position].value = value
    }

    /// Makes room for `count` kept values at once: a re-imported object given every value
    /// of a row it never loaded keeps one per attribute, and the array grew four times on the
    /// way (about 1.8k instructions a record of stash-bench's re-import under callgrind).
    mutating func reserveCapacity(_ count: Int) {
        kept.reserveCapacity(count)
    }

    /// Puts the kept values back into `object`.
    func restore(into object: ManagedObject) {
        for entry in kept { object.setValue(entry.value, inSlot: entry.slot) }
    }
}
