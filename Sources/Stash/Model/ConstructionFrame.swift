import CStashRuntime
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What this thread knows about the managed objects it builds: the layout of the class it
/// built last, and, while an entity is described, the declarations its wrappers make.
///
/// Swift runs a class's stored-property initializers, and so every wrapper's `init`, before
/// the class's `init` body and before `ManagedObject.init` can see them. While an entity is
/// described (`EntityDescription.init`, counted in `entitiesBeingDescribed`), each wrapper
/// records its declaration here and keeps its number as its slot; `ManagedObject.init` reads
/// those numbers back through the class's layout (`described`) before it writes the real
/// slots. A model built inside another's initializer records its own declarations, which
/// its own numbers find. Otherwise wrappers never look here.
///
/// A frame belongs to one thread and is never shared, so its properties skip the runtime's
/// exclusivity checks.
@usableFromInline
final class ConstructionFrame {
    /// Set while an entity is described: wrappers then record their declarations.
    @exclusivity(unchecked) @usableFromInline var isDescribing = false
    /// The declarations recorded while describing, by number.
    var declarations: [AttributeDeclaration] = []
    var toManyDeclarations: [RelationshipDeclaration] = []
    /// What each object built while describing declared, by object: its attributes' and
    /// to-one relationships' declarations in slot order, its to-many ones' by index.
    var describedObjects: [ObjectIdentifier: (fields: [AttributeDeclaration?], toMany: [RelationshipDeclaration?])] =
        [:]
    /// The layout of the class built last on this thread: objects come in runs of one class.
    @exclusivity(unchecked) var lastLayout: ObjectLayout?
    /// Set while a key path through to-one relationships is probed (`EntityDescription
    /// .path(for:)`): a probe's to-one relationship then reads as a probe of its target,
    /// appended here, rather than nil.
    var relationshipProbes: [ManagedObject]?
    /// Set while a relationship's nested object is decoded through JSONDecoder
    /// (`ObjectDecoder.handingOver`; the reader's finds its context itself): the object's class
    /// and its parent's context. The object's default `init(from:)` takes the context from
    /// here, once, instead of finding it in `userInfo` again (1.15k instructions a nested
    /// author: hashing the key and casting the value). A relationship never crosses contexts,
    /// so the parent's is the one the object must go into.
    @exclusivity(unchecked) var handedOverClass: ObjectIdentifier?
    @exclusivity(unchecked) var handedOverContext: ManagedObjectContext?

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

    /// Records an attribute's or to-one relationship's declaration; returns its number.
    func declare(_ declaration: AttributeDeclaration) -> Int {
        declarations.append(declaration)
        return declarations.count - 1
    }

    /// Replaces the declaration numbered `number`.
    func redeclare(_ declaration: AttributeDeclaration, at number: Int) {
        declarations[number] = declaration
    }

    /// Records a to-many relationship's declaration; returns its number.
    func declare(toMany declaration: RelationshipDeclaration) -> Int {
        toManyDeclarations.append(declaration)
        return toManyDeclarations.count - 1
    }

    /// Keeps what `object`'s wrappers declared, given the numbers they kept as slots.
    func described(_ object: ManagedObject, declarationNumbers numbers: (fields: [Int], toMany: [Int])) {
        describedObjects[ObjectIdentifier(object)] = (
            numbers.fields.map { declarations.indices.contains($0) ? declarations[$0] : nil },
            numbers.toMany.map { toManyDeclarations.indices.contains($0) ? toManyDeclarations[$0] : nil }
        )
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
