import Observation

/// An object's `ObservationRegistrar`, held by reference. Observation's registrar is a
/// resilient struct: kept inline, every object made and freed set and destroyed an optional
/// of it through its type's metadata (about 90 instructions an object, in `ManagedObject.init`
/// and its deinit), though most objects are never observed. Boxed, an object never read by
/// an observing context holds `nil`, a word.
final class RegistrarBox {
    let registrar = ObservationRegistrar()
}
