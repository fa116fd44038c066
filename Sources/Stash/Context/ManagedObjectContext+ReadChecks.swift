#if DEBUG
    /// Debug builds check reads too: a loaded attribute read from another isolation races
    /// with the context's writes to it (ThreadSanitizer reported it every run; release builds
    /// crashed freeing a string still in use), and the compiler cannot see it once an object
    /// crossed in an `@unchecked Sendable` box. Release builds check writes and entry points
    /// only, and pay nothing on reads.
    ///
    /// The fast part, on every read, is `ManagedObject.checkRead`; what it could not tell
    /// comes here.
    extension ManagedObjectContext {
        /// What this context's objects keep for the check (see `ReadGuard`).
        var readGuard: ReadGuard {
            let context = Unmanaged.passUnretained(self)
            switch confinement {
            case .main: return ReadGuard(kind: .main, context: context)
            case .background(let actor):
                return ReadGuard(kind: .queue, context: context, executor: Unmanaged.passUnretained(actor.executor))
            case .actor: return ReadGuard(kind: .actor, context: context)
            case .unconfined: return ReadGuard(kind: .unconfined, context: context)
            }
        }

        /// `false` while another thread is inside this unconfined context.
        var hasNoOtherOccupant: Bool {
            let occupant = occupant.load(ordering: .relaxed)
            return occupant == 0 || occupant == currentThreadID
        }

        /// Traps, as the runtime does, unless the caller is on the actor of this context, made
        /// in one of its methods.
        func checkActorOfRead() {
            if case .actor(let actor) = confinement { actor.preconditionIsolated() }
        }

        /// `nil` if the caller may read this context's objects here; otherwise how the read is
        /// misplaced.
        func misplacedRead() -> String? {
            switch confinement {
            case .main:
                return isOnMainActor ? nil : "off the main actor, to which \(name) belongs"
            case .background(let actor):
                return actor.executor.isRunningJob || actor.executor.isCurrent
                    ? nil : "outside \(name).perform { … }, off the queue to which the context belongs"
            case .actor:
                // The runtime's check, which traps itself, naming the actor: Swift has no call
                // that tells without trapping.
                checkActorOfRead()
                return nil
            case .unconfined:
                return hasNoOtherOccupant
                    ? nil : "by one thread while another was inside \(name), which belongs to one task at a time"
            }
        }

        /// Traps, naming the property and how its read is misplaced, unless the caller may read
        /// here: for a read of the attribute or to-one relationship at `slot` of `object`, or (`toMany`) of its to-many relationship at that index.
        func checkMisplacedRead(of object: ManagedObject, atSlot slot: Int, toMany: Bool) {
            guard let misplaced = misplacedRead() else { return }
            let entity = object.entity
            let named = toMany ? entity.toManyRelationships[slot].name : entity.attributes[slot].name
            let property = "\(entity.name).\(named)"
            fatalError(
                "Stash: \(property) was read \(misplaced). A context's objects are read where the context is "
                    + "used, as they are written: read it there, or pass its objectID and read it through a "
                    + "context of your own (existingObject(with:)).")
        }
    }
#endif
