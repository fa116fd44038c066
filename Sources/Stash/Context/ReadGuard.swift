#if DEBUG
    /// What the debug check on reads needs of an object's context, kept in the object
    /// (`ManagedObject.readGuard`) and read on every attribute and relationship read.
    ///
    /// Unmanaged: the object holds its context, and the context its executor, for as long as
    /// the object keeps this; a retain and release on every read cost more than the check. Plain
    /// fields rather than an enum's payloads, which a debug build copies out to switch on.
    struct ReadGuard {
        enum Kind {
            /// In no context: not checked.
            case none
            /// The main actor's context: read on the main queue.
            case main
            /// A background context: read in a job of its executor (or on its queue).
            case queue
            /// A context confined to no executor: read while no other thread is inside it.
            case unconfined
            /// Another actor's context: the runtime checks.
            case actor
        }

        var kind = Kind.none
        var context: Unmanaged<ManagedObjectContext>?
        /// `.queue`: the context's executor.
        var executor: Unmanaged<QueueExecutor>?
    }
#endif
