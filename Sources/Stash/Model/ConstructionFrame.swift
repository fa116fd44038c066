import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Carries the value box of an object being built from its property wrappers to the
/// object itself, through two thread-local slots.
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
enum ConstructionFrame {
    /// The box of the object being built on this thread, started by its first wrapper.
    @inlinable
    static var currentStorage: ObjectStorage {
        if let pointer = pthread_getspecific(storageKey) {
            return Unmanaged<ObjectStorage>.fromOpaque(pointer).takeUnretainedValue()
        }
        return startStorage()
    }

    /// A new box, sized like the last object built on this thread, held by the thread
    /// until `take()`.
    @usableFromInline
    static func startStorage() -> ObjectStorage {
        let storage = ObjectStorage(capacity: Int(bitPattern: pthread_getspecific(countKey)))
        pthread_setspecific(storageKey, Unmanaged.passRetained(storage).toOpaque())
        return storage
    }

    /// Hands the box to the new object and starts afresh for the next one.
    static func take() -> ObjectStorage {
        guard let pointer = pthread_getspecific(storageKey) else { return ObjectStorage(capacity: 0) }
        pthread_setspecific(storageKey, nil)
        let storage = Unmanaged<ObjectStorage>.fromOpaque(pointer).takeRetainedValue()
        pthread_setspecific(countKey, UnsafeRawPointer(bitPattern: storage.values.count))
        precondition(
            !storage.isOwned, "a ManagedObject's values were taken twice: model initializers must not be async")
        storage.isOwned = true
        return storage
    }
}

/// The thread's box under construction; a thread that ends mid-construction releases it.
@usableFromInline
let storageKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        #if canImport(Darwin)
            Unmanaged<ObjectStorage>.fromOpaque(pointer).release()
        #else
            if let pointer { Unmanaged<ObjectStorage>.fromOpaque(pointer).release() }
        #endif
    }
    return key
}()

/// How many values the thread's last object had, as pointer bits: the next box reserves
/// that much.
@usableFromInline
let countKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
