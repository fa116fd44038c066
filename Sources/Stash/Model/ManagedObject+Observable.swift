import Observation

/// Models are `Observable`: `withObservationTracking` (and SwiftUI on Apple platforms) sees
/// reads and changes of their attributes, for objects of a context that reports them
/// (`ManagedObjectContext.observesObjects`: `mainContext` does, others when asked). A context
/// that does not, as for a bulk import, pays nothing for it but a flag test per read.
extension ManagedObject: Observable {
    /// The value at `slot`, by key path: what Observation is told was read or changed.
    subscript(observedSlot slot: Int) -> Any? {
        value(atSlot: slot)
    }

    /// Reports a read of the attribute at `slot`. The registrar is made by the first read:
    /// until something has been read, no one can be tracking a change, so an object never
    /// read has none. Made when the object joined its context, it cost 1.4k instructions an
    /// object adopted into `mainContext` (stash-bench's REST import under callgrind).
    @usableFromInline
    final func observeAccess(atSlot slot: Int) {
        if probedSlots != nil { return probedSlots!.append(slot) }
        if registrar == nil { registrar = RegistrarBox() }
        registrar!.registrar.access(self, keyPath: entity.observationKeyPaths[slot])
    }

    /// Stores `value` at `slot` inside Observation's will-set and did-set, when observed and
    /// read before (see `observeAccess`).
    final func observedChange(atSlot slot: Int, _ change: () -> Void) {
        guard isObserved, let box = registrar else { return change() }
        box.registrar.withMutation(of: self, keyPath: entity.observationKeyPaths[slot], change)
    }

    /// Starts or stops reporting reads and writes.
    final func setObserved(_ observed: Bool) {
        isObserved = observed
    }
}
