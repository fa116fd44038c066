// Swift runtime entry points Stash calls that the standard library does not surface.
// They are exported by libswiftCore, which every Swift program links; nothing else is linked.
// And the thread-local slot of the object being built, which frame.c defines.
/// Retains a Swift object unless its deinitialization has begun: answers the object, retained,
/// or NULL (the runtime declares it `HeapObject *swift_tryRetain(HeapObject *)`: not a `bool`).
/// The only safe way to take a strong reference from an unowned(unsafe) one that another
/// thread may be releasing for the last time (see Stash's `RegisteredObjects`).
void *swift_tryRetain(void *object);

/// The thread's `ConstructionFrame` (unretained; the thread's pthread key keeps it and
/// releases it when the thread ends), or NULL before the thread built its first object.
/// A C thread-local: Swift has none, and the pthread key's look-up, through a lazily made
/// global, cost every `@Attribute` initializer about 35 instructions (see ConstructionFrame).
extern __thread void *stash_construction_frame;

static inline void *stash_current_frame(void) {
    return stash_construction_frame;
}

static inline void stash_set_current_frame(void *frame) {
    stash_construction_frame = frame;
}
