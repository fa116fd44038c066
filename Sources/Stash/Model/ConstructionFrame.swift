import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Carries the value box of an object being built from its property wrappers to the
/// object itself.
///
/// Swift runs a class's stored-property initializers, and so every `@Attribute` wrapper's
/// `init`, before the class's `init` body and before `ManagedObject.init` can see them. The
/// first wrapper starts an `ObjectStorage` here; each wrapper appends its initial value (or
/// "unset") and keeps the box and its slot; `ManagedObject.init` then takes the box. This is
/// what lets decoding, fetching and saving reach every attribute by slot, with no
/// reflection per object, and lets a property read be an array load.
///
/// Stored-property initializers cannot suspend, so a thread-local frame is safe under Swift
/// concurrency, as long as a model's designated initializers are not `async` (one that
/// awaits before `super.init()` could resume on another thread, away from its values).
@usableFromInline
final class ConstructionFrame {
    @exclusivity(unchecked) @usableFromInline var storage: ObjectStorage?
    /// How many values the last object had: the next box reserves that much.
    @exclusivity(unchecked) @usableFromInline var lastCount = 0

    /// The box of the object being built, started by its first wrapper.
    @inlinable
    var currentStorage: ObjectStorage {
        if let storage { return storage }
        let storage = ObjectStorage(capacity: lastCount)
        self.storage = storage
        return storage
    }

    /// Hands the box to the new object and starts afresh for the next one.
    func take() -> ObjectStorage {
        let storage = self.storage ?? ObjectStorage(capacity: 0)
        precondition(
            storage.owner == nil,
            "a ManagedObject's values were taken twice: model initializers must not be async")
        self.storage = nil
        lastCount = storage.values.count
        return storage
    }

    /// This thread's frame.
    @usableFromInline
    static var current: ConstructionFrame {
        if let pointer = pthread_getspecific(frameKey) {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frame = ConstructionFrame()
        pthread_setspecific(frameKey, Unmanaged.passRetained(frame).toOpaque())
        return frame
    }
}

/// The key of the per-thread frame; its destructor releases the frame when a thread ends.
private let frameKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        #if canImport(Darwin)
            Unmanaged<ConstructionFrame>.fromOpaque(pointer).release()
        #else
            if let pointer { Unmanaged<ConstructionFrame>.fromOpaque(pointer).release() }
        #endif
    }
    return key
}()
