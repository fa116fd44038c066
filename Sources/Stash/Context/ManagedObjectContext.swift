import Foundation
import Synchronization

/// Tracks a set of managed objects: one instance per stored row, their unsaved changes,
/// and the unique values that make decoding an upsert. `save()` writes the changes in one
/// transaction.
///
/// ```swift
/// let context = ManagedObjectContext(container)
/// decoder.userInfo[.managedObjectContext] = context
/// let posts = try decoder.decode([Post].self, from: data)   // inserted or updated
/// try context.save()
/// ```
///
/// ## Concurrency
/// A context belongs to one executor, and it and its objects are used there only, as with
/// Core Data's confinement; every entry point and attribute write checks it (debug builds
/// check attribute and relationship reads too), and use from elsewhere is a trap that names
/// the context:
/// - `container.mainContext` belongs to the main actor;
/// - `container.newBackgroundContext()`, and the context `performBackgroundTask` hands out,
///   to a private serial executor of their own, entered with `perform`;
/// - `ManagedObjectContext(container)` to the actor it is made on (`#isolation`): the main
///   actor in top-level and `@MainActor` code, the actor in an actor's method. Made where no
///   actor is (a nonisolated task), it is confined to no executor: use it from one task at a
///   time; two threads inside it at once is a trap.
///
/// The context is `Sendable`, so it can ride in `JSONDecoder.userInfo` and reach `perform`
/// from anywhere. Its objects are not: pass an object's `objectID` to another context and
/// look it up there (`existingObject(with:)`).
// `@unchecked`: every entry point checks the confinement above before touching state.
public final class ManagedObjectContext: @unchecked Sendable {
    public let container: PersistentContainer
    /// Who may use the context.
    let confinement: Confinement
    /// How the context is named in messages: `mainContext`, `background context 2`, ….
    public let name: String
    /// Held while an unconfined context is in use, to catch two threads inside it at once.
    let lock = NSRecursiveLock()
    #if DEBUG
        /// The thread inside an unconfined context, 0 when none is: the debug check on reads
        /// compares it (a try-lock would order the reader after the writer, and so hide the
        /// race from ThreadSanitizer).
        let occupant = Atomic<UInt>(0)
    #endif
    /// Takes in what other contexts saved.
    let merger = Merger()
    /// Loads what partly loaded objects lack.
    let faults = FaultLoader()
    /// Turns the pending changes into a store change set.
    let planner = SavePlanner()
    /// Keeps one object per unique value.
    let resolver = UniqueResolver()
    /// Records what changes, for rollback, undo and the save.
    let tracker = ChangeTracker()
    /// Keeps the object graph: related objects, lists, delete rules.
    let graph = ObjectGraph()
    /// Decodes objects into the context.
    let decoding = ObjectDecoder()
    /// Raised when most of an entity's registered objects were freed (see `DepartureSignal`).
    let departures: DepartureSignal
    /// How deep in entry points the context is: merges happen only at the outermost one.
    private var depth = 0
    /// `true` (the default) to take other contexts' saves into this context's objects: at the
    /// next call into it, or, for `mainContext` and background contexts, on their executor
    /// as soon as the save commits. With `false`, objects keep what they last loaded (and a
    /// save under `.storedWins` or `.fail` catches what changed since).
    public var automaticallyMergesChanges: Bool {
        get { entering { merger.isOn } }
        set { entering { merger.isOn = newValue } }
    }
    /// The fetches `observe` delivers again after saves.
    let observers = ObserverList()

    /// `true` to report reads and changes of this context's objects' attributes to
    /// Observation (`withObservationTracking`, SwiftUI), merged changes included. On for
    /// `mainContext`; off by default elsewhere, where a bulk import would pay for it (a call
    /// per read, and an `ObservationRegistrar` per object read: about 10% on `stash-bench`'s
    /// fetch-all).
    public var observesObjects: Bool {
        get { entering { reportsToObservation } }
        set {
            entering {
                reportsToObservation = newValue
                for state in identity.states {
                    for object in state.byRowID.objects { object.setObserved(newValue) }
                    for object in state.inserted where state.isLive(object) { object.setObserved(newValue) }
                }
            }
        }
    }
    var reportsToObservation = false
    /// Which objects the context holds, by entity and row.
    let identity: IdentityMap
    private var policy = MergePolicy.incomingWins
    /// A load that failed inside a property read, for the next throwing call
    /// (`ManagedObjectContext+LoadErrors`).
    var pendingLoadError: StashError?
    // Unchecked: the context is used from one isolation at a time (see `Confinement`), and the
    // runtime's check costs about 85 instructions an access (see `ManagedObject.state`).
    /// The container's count of commits by other processes as of this context's last fetch
    /// (see `ExternalCommits`): objects loaded before it are refreshed by the rows fetches read.
    @exclusivity(unchecked) var externalCommitsSeen: UInt64 = 0
    /// The container's save generations before and after this context's last save, and the
    /// store's change token right after it. A snapshot taken then is true while `after` and
    /// `token` stay (`DetachedObject`); two saves in a row with none between have the first's
    /// `after` as the second's `before`.
    package internal(set) var lastSave: (before: UInt64, after: UInt64, token: Int64)?
    /// The container's counts of saves that changed each entity's rows, before and after this
    /// context's last save (`PersistentContainer.noteRowsChanged`).
    package internal(set) var lastRowChangeCounts: (before: [UInt64], after: [UInt64])?
    /// Whether a save records the edits of `RemoteModel` objects in the outbox, for StashREST's
    /// `push` (see `ManagedObjectContext+Outbox`). Contexts that write what a server sent
    /// (StashREST's fetches, a push's answers) do not.
    public var recordsEdits = true
    /// A push's acknowledgements and ETags, written by the next save (see `saveAcknowledging`).
    var outboxHandOff = OutboxWrite()

    /// A context for the actor it is made on (see Concurrency above): `isolation` is the
    /// caller's, and is not meant to be passed.
    public convenience init(_ container: PersistentContainer, isolation: isolated (any Actor)? = #isolation) {
        self.init(container, confinement: Confinement(isolation), name: nil)
    }

    init(_ container: PersistentContainer, confinement: Confinement, name: String?) {
        self.container = container
        self.confinement = confinement
        self.name = name ?? container.nextContextName(confinement)
        let departures = DepartureSignal()
        self.departures = departures
        identity = IdentityMap(container.entities, positions: container.positionsByType, departures: departures)
        for state in identity.states { state.context = self }
        merger.context = self
        faults.context = self
        planner.context = self
        resolver.context = self
        tracker.context = self
        graph.context = self
        decoding.context = self
        container.register(self)
    }

    /// A part kept past its context (a caller holding `context.graph`) traps on its next use
    /// instead of reading freed memory (see `ContextPart`).
    deinit {
        container.unregister(self)
        for part: ContextPart in [merger, faults, planner, resolver, tracker, graph, decoding] { part.context = nil }
    }

    /// How an incoming object whose unique value is taken is merged; `.incomingWins`
    /// unless set.
    public var mergePolicy: MergePolicy {
        get { entering { policy } }
        set { entering { policy = newValue } }
    }

    /// `mergePolicy` for the context's parts, which run inside an entry point already: no
    /// second check, and no merge started from inside one of theirs.
    var policyInEffect: MergePolicy { policy }

    /// How many objects of stored rows the context holds now, alive (see
    /// `RegisteredObjects`).
    var registeredObjectCount: Int {
        entering { identity.registeredObjectCount }
    }

    /// `true` if anything was inserted, changed or deleted since the last save.
    public var hasChanges: Bool {
        entering { !graph.listOwners.isEmpty || identity.states.contains(where: \.hasChanges) }
    }

    // MARK: Inserting and deleting

    /// Inserts a new object: it is saved by the next `save()`. If its unique value is
    /// already taken, in the context or the store, it stands in for the object that has it
    /// (the same `objectID`, its properties read and write that object's values), and the
    /// context's `mergePolicy` says what happens to the values it was given: the default
    /// `.incomingWins` writes them over that object's (an upsert).
    public func insert(_ object: ManagedObject) {
        insert(object, match: nil)
    }

    /// Inserts a new object, saying what happens if its unique value is already taken:
    /// `.upsert` gives the existing object the values this one was given before the insert;
    /// `.adopt` takes the existing object as it is, so they count only if the object is new.
    /// Either way what is set after is an edit of that object. See `UniqueMatch`.
    ///
    /// ```swift
    /// let feed = Feed()
    /// feed.url = url
    /// feed.title = "(loading…)"
    /// context.insert(feed, onMatch: .adopt)   // feed.title: the stored title, if the feed is stored
    /// ```
    public func insert(_ object: ManagedObject, onMatch match: UniqueMatch) {
        insert(object, match: match)
    }

    private func insert(_ object: ManagedObject, match: UniqueMatch?) {
        entering {
            switch object.state {
            case .transient:
                let state = self.state(forObjectOf: type(of: object))
                object.cachedEntity = state.entity
                object.uniqueMatch = match
                if match != nil { state.hasExplicitMatches = true }
                register(object, in: state)
                decoding.takeDecodingParent(object, in: state)
                resolver.resolveUniqueValues(of: object, in: state)
                if object.state == .inserted { tracker.awaken(object) }
            case .standIn:
                break
            case .deleted where object.managedObjectContext === self:
                undelete(object)
            default:
                // `fatalError`, not `precondition`: release builds print its message too.
                if object.managedObjectContext !== self {
                    fatalError(
                        "Stash: \(object.entity.name) \(object.objectID) already belongs to another context; use "
                            + "existingObject(with:) to get this context's object for it")
                }
            }
        }
    }

    /// Marks an object for deletion at the next save; a new object is simply dropped. Its
    /// relationships' delete rules apply at once: related objects lose it (`.nullify`) or are
    /// deleted too (`.cascade`); `.deny` fails the save while related objects remain.
    public func delete(_ object: ManagedObject) {
        entering {
            let object = object.resolved
            guard object.managedObjectContext === self, object.state == .inserted || object.state == .persisted
            else { return }
            let state = self.identity.state(for: object.entity)
            let wasInserted = object.state == .inserted
            tracker.journal?.recordDelete(object, in: state)
            object.prepareForDeletion()
            guard object.state == .inserted || object.state == .persisted else { return }
            // Deleted first, so that a cascade that comes back to it stops here.
            object.state = .deleted
            graph.applyDeleteRules(to: object)
            if wasInserted {
                object.state = .transient
                object.managedObjectContext = nil
            } else {
                state.deleted[ObjectIdentifier(object)] = object
            }
        }
    }

    /// Drops every unsaved change: new objects leave the context, changed objects get
    /// their saved values back, deleted objects come back.
    ///
    /// Called while the context decodes (from an `init(from:)` or a hook), it does nothing and
    /// the decode fails with `.invalidModel` as it ends, undone: a decode is all or nothing.
    public func rollback() {
        entering {
            if let journal = tracker.journal {
                journal.refusedCall = journal.refusedCall ?? "rollback()"
                return
            }
            tracker.rollback()
        }
    }

    /// Forgets every object: unsaved changes are dropped and objects fetched later are
    /// new instances. Frees the memory a long-lived context gathers, related objects
    /// included: an object still held afterwards belongs to no context, and its
    /// relationships read as empty (or as the object it was last set to). Called while the
    /// context decodes, it does nothing and the decode fails, undone, as `rollback()` does.
    public func reset() {
        entering {
            if let journal = tracker.journal {
                journal.refusedCall = journal.refusedCall ?? "reset()"
                return
            }
            graph.generation &+= 1
            rollback()
            for state in identity.states {
                // A stand-in made before the last save (rollback took out the later ones) leaves
                // as a copy of what its holder read, as the holder does: it no longer writes to
                // the holder, and inserted again it is a new object, matched by its unique value.
                for object in state.standIns.objects
                where object.state == .standIn && object.managedObjectContext === self {
                    resolver.detach(standIn: object, in: state)
                }
                state.standIns.removeAll()
                for object in state.byRowID.objects {
                    object.managedObjectContext = nil
                    object.state = .transient
                    // A list and its members' inverse to-one relationships hold each other;
                    // forgotten objects let go of their lists so the graph can be freed.
                    object.toManyLists = nil
                }
                state.byRowID.removeAll()
                state.uniqueIndexes = state.uniqueIndexes.map { _ in [:] }
                state.unindexed = []
                state.partial.removeAll()
                state.lastFetch = FetchedRows()
                for index in state.storedKeys { index.forget(generation: container.saveGeneration) }
            }
        }
    }

    // MARK: Bookkeeping

    @inline(__always)
    func entering<Result>(_ body: () throws -> Result) rethrows -> Result {
        switch confinement {
        case .main:
            if !isOnMainQueue { usedOffItsExecutor() }
            return try inside(body)
        case .background(let actor):
            if !actor.executor.isCurrent { usedOffItsExecutor() }
            return try inside(body)
        case .actor(let actor):
            // The runtime's own check; its message names the actor.
            actor.preconditionIsolated()
            return try inside(body)
        case .unconfined:
            guard lock.try() else { twoThreadsAtOnce() }
            defer { lock.unlock() }
            #if DEBUG
                let outer = occupant.exchange(currentThreadID, ordering: .relaxed)
                defer { occupant.store(outer, ordering: .relaxed) }
            #endif
            return try inside(body)
        }
    }

    /// Runs an entry point once the caller may: the outermost one first merges what other
    /// contexts saved, unless an all-or-nothing decode is under way.
    @inline(__always)
    private func inside<Result>(_ body: () throws -> Result) rethrows -> Result {
        depth += 1
        defer { depth -= 1 }
        if depth == 1, tracker.journal == nil {
            if merger.hasMail.load(ordering: .relaxed) { merger.mergeInbox() }
            if departures.take() {
                for state in identity.states { state.releaseDeparted() }
            }
        }
        return try body()
    }

    /// Traps, as any use would, if the caller may not use the context here: for work that
    /// ends by using it (StashREST checks before the download, not after).
    package func checkCaller() {
        entering {}
    }

    private func usedOffItsExecutor() -> Never {
        fatalError(
            "Stash: \(name) was used off its executor. A context and its objects belong to the executor "
                + "it was made for: call into it there (\(name).perform { … }), or pass objectIDs and use "
                + "another context (container.newBackgroundContext()).")
    }

    private func twoThreadsAtOnce() -> Never {
        fatalError(
            "Stash: \(name) was used by two threads at once. A context made outside an actor belongs to "
                + "one task at a time: make it inside the actor that uses it, or use "
                + "container.newBackgroundContext() and perform { … }.")
    }

    /// For `insert`, which cannot throw: using a class the container does not store is a
    /// programming error.
    private func state(forObjectOf type: ManagedObject.Type) -> EntityState {
        do {
            return try identity.state(forType: type)
        } catch {
            fatalError("Stash: \(error)")
        }
    }

    /// Makes a new object part of this context, as inserted.
    func register(_ object: ManagedObject, in state: EntityState) {
        object.managedObjectContext = self
        object.state = .inserted
        object.temporaryID = identity.takeTemporaryID()
        if reportsToObservation { object.setObserved(true) }
        state.enqueueInsert(object)
        tracker.journal?.recordInsert(object)
        // A new object has no related rows yet: its to-many lists start empty and loaded, so
        // objects that point at it join them as they do, with no query. A list set while it
        // was in no context is set again, now that there is one to track it.
        for (index, relationship) in state.entity.toManyRelationships.enumerated() {
            let preset = object.loadedList(index)?.objects ?? []
            object.keepList(ToManyList([], generation: graph.generation), at: index)
            if !preset.isEmpty { graph.setObjects(preset, of: relationship, in: object) }
        }
    }

    /// Makes an object loaded from a row part of this context. Its unique values join the
    /// unique index at the next lookup, unless the caller indexes it (`indexed: false`).
    func registerPersisted(_ object: ManagedObject, rowID: Int64, in state: EntityState, indexed: Bool = true) {
        object.managedObjectContext = self
        object.externalCommitsSeen = externalCommitsSeen
        object.state = .persisted
        object.rowID = rowID
        state.register(object, rowID: rowID)
        if reportsToObservation { object.setObserved(true) }
        if indexed, !state.entity.uniqueAttributes.isEmpty { state.unindexed.append(rowID) }
        tracker.journal?.recordRegistration(object)
    }

    private func undelete(_ object: ManagedObject) {
        let state = self.identity.state(for: object.entity)
        object.state = .persisted
        state.deleted[ObjectIdentifier(object)] = nil
        state.index(object, in: self)
    }

    /// Called after a unique attribute changed, to keep the unique index current; a new
    /// object whose new value is taken becomes a stand-in (see `UniqueResolver.resolveUniqueValues`).
    func uniqueValueDidChange(_ object: ManagedObject) {
        entering {
            switch object.state {
            case .inserted: resolver.resolveUniqueValues(of: object, in: identity.state(for: object.entity))
            case .persisted: identity.state(for: object.entity).index(object, in: self)
            case .transient, .deleted, .standIn: break
            }
        }
    }
}
