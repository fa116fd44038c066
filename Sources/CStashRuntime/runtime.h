// Swift runtime entry points Stash calls that the standard library does not surface.
// They are exported by libswiftCore, which every Swift program links; nothing else is linked.
/// Retains a Swift object unless its deinitialization has begun: answers the object, retained,
/// or NULL (the runtime declares it `HeapObject *swift_tryRetain(HeapObject *)`: not a `bool`).
/// The only safe way to take a strong reference from an unowned(unsafe) one that another
/// thread may be releasing for the last time (see Stash's `RegisteredObjects`).
void *swift_tryRetain(void *object);
