import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Carries attribute initial values from property wrappers to the object being built.
///
/// Swift runs a class's stored-property initializers, and so every `@Attribute` wrapper's
/// `init`, before the class's `init` body and before `ManagedObject.init` can see them. Each
/// wrapper appends its initial value (or "unset") here and keeps the slot it got;
/// `ManagedObject.init` then takes the whole array as the object's storage. This is what
/// lets the wrappers hold no value of their own, so decoding, fetching and saving reach
/// every attribute by slot, with no reflection per object.
///
/// Initializers cannot suspend, so a thread-local frame is safe under Swift concurrency.
final class ConstructionFrame {
    var values: ContiguousArray<Any?> = []
    private var lastCount = 0

    /// Appends an initial value and returns its slot. The parameter is `Any`, not `Any?`,
    /// so an optional attribute's `nil` is kept as a value, distinct from unset.
    @inline(__always)
    func append(_ value: Any) -> Int {
        if values.isEmpty { values.reserveCapacity(lastCount) }
        values.append(value)
        return values.count - 1
    }

    /// Appends "unset", for a required attribute without a default, and returns its slot.
    @inline(__always)
    func appendUnset() -> Int {
        if values.isEmpty { values.reserveCapacity(lastCount) }
        values.append(nil)
        return values.count - 1
    }

    /// Hands every value gathered so far to the new object and starts empty again.
    @inline(__always)
    func take() -> ContiguousArray<Any?> {
        lastCount = values.count
        defer { values = [] }
        return values
    }

    /// This thread's frame.
    static var current: ConstructionFrame {
        @inline(__always) get {
            if let pointer = pthread_getspecific(frameKey) {
                return Unmanaged<ConstructionFrame>.fromOpaque(pointer).takeUnretainedValue()
            }
            let frame = ConstructionFrame()
            pthread_setspecific(frameKey, Unmanaged.passRetained(frame).toOpaque())
            return frame
        }
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
