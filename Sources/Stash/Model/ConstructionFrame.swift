import CStashRuntime
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What this thread knows about the managed object it is building: the value box its
/// `@Attribute` wrappers fill.
///
/// Swift runs a class's stored-property initializers, and so every wrapper's `init`, before
/// the class's `init` body and before `ManagedObject.init` can see them. The first wrapper
/// starts a box here; each wrapper appends its initial value and keeps the box and its slot;
/// `ManagedObject.init` takes the box and claims it (`ObjectLayout.claim`), which checks
/// through the object's own wrapper fields that the box is exactly theirs. When it is not
/// (a model built inside another's initializer, an initializer that awaited and resumed on
/// another thread), the object gathers its values from its wrappers into a box of its own.
/// So the frame is a fast path, never a source of truth.
///
/// A frame belongs to one thread and is never shared, so its properties skip the runtime's
/// exclusivity checks: with them, materializing fetched objects costs 11% more instructions
/// (stash-bench under callgrind, 5,000 records).
@usableFromInline
final class ConstructionFrame {
    /// The box the wrappers being initialized on this thread append to.
    @exclusivity(unchecked) @usableFromInline var box: ObjectStorage?
    /// How many values the last object built on this thread had: a new box reserves that.
    @exclusivity(unchecked) @usableFromInline var capacityHint = 0
    /// Set while an entity is described: wrappers then record their declarations.
    @exclusivity(unchecked) @usableFromInline var isDescribing = false
    /// The layout of the class built last on this thread: objects come in runs of one class.
    @exclusivity(unchecked) var lastLayout: ObjectLayout?
    /// Set while a key path through to-one relationships is probed (`EntityDescription
    /// .path(for:)`): a probe's to-one relationship then reads as a probe of its target,
    /// appended here, rather than nil.
    var relationshipProbes: [ManagedObject]?

    @usableFromInline init() {}

    /// This thread's frame.
    @inlinable
    static var current: ConstructionFrame {
        if let pointer = stash_current_frame() {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer).takeUnretainedValue()
        }
        return makeCurrent()
    }

    /// Makes the thread's frame: kept by the thread's pthread key, which releases it when the
    /// thread ends, and found through the C thread-local slot, which is quicker to read.
    @usableFromInline
    static func makeCurrent() -> ConstructionFrame {
        let frame = ConstructionFrame()
        let pointer = Unmanaged.passRetained(frame).toOpaque()
        pthread_setspecific(frameKey, pointer)
        stash_set_current_frame(pointer)
        return frame
    }

    /// This thread's frame, not retained: the thread keeps it. A wrapper's initializer
    /// (nine an object) reads through it with `_withUnsafeGuaranteedRef`, paying no retain
    /// and release.
    @inlinable @inline(__always)
    static var unretainedCurrent: Unmanaged<ConstructionFrame> {
        if let pointer = stash_current_frame() { return .fromOpaque(pointer) }
        return .passUnretained(makeCurrent())
    }

    /// The box to append to, started by the first wrapper of an object.
    @inlinable
    func currentBox() -> ObjectStorage {
        if let box { return box }
        return startBox()
    }

    @usableFromInline
    func startBox() -> ObjectStorage {
        let started = ObjectStorage(capacity: capacityHint)
        box = started
        return started
    }

    /// Records a wrapper's declaration while an entity is described.
    @usableFromInline
    func declare(_ declaration: AttributeDeclaration, in box: ObjectStorage, at slot: Int) {
        box.declarations = box.declarations ?? [:]
        box.declarations?[slot] = declaration
    }

    /// Hands the box to the object being initialized; the next wrapper starts a new one.
    func takeBox() -> ObjectStorage? {
        defer { box = nil }
        return box
    }

    /// The layout of `type`, from the one-entry cache or the process-wide one.
    func layout(of type: ManagedObject.Type) -> ObjectLayout {
        if let lastLayout, lastLayout.type == type { return lastLayout }
        let layout = ObjectLayout.of(type)
        lastLayout = layout
        return layout
    }
}

/// The key that releases each thread's frame when the thread ends (the frame is looked up
/// through `stash_current_frame()`). The destructor clears that slot too: a later key's
/// destructor on the same thread may still build an object, which then makes a new frame
/// rather than use a freed one.
let frameKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        stash_set_current_frame(nil)
        #if canImport(Darwin)
            Unmanaged<ConstructionFrame>.fromOpaque(pointer).release()
        #else
            if let pointer { Unmanaged<ConstructionFrame>.fromOpaque(pointer).release() }
        #endif
    }
    return key
}()
