import Foundation

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
/// A context is `Sendable`, so it can ride in `JSONDecoder.userInfo` and be handed to a
/// task; it guards its own bookkeeping with a lock. Its objects are not `Sendable`: use a
/// context and its objects from one isolation domain at a time (one actor, one task, or
/// one thread), as with Core Data's confinement. To hand an object elsewhere, pass its
/// `objectID` and look it up in that domain's own context.
public final class ManagedObjectContext: @unchecked Sendable {
    public let container: PersistentContainer
    let lock = NSRecursiveLock()
    /// Per entity, in the container's order; the order `save()` writes in.
    let states: [EntityState]
    private let stateIndex: [ObjectIdentifier: Int]
    private var nextTemporaryID: UInt64 = 1
    private var policy = MergePolicy.incomingWins
    /// Set while `decode(_:from:using:)` runs, so a failure can undo what it did.
    var activeJournal: ChangeJournal?

    public init(_ container: PersistentContainer) {
        self.container = container
        states = container.entities.map(EntityState.init)
        stateIndex = Dictionary(
            uniqueKeysWithValues: container.entities.enumerated().map { (ObjectIdentifier($1), $0) })
        for state in states { state.context = self }
    }

    /// How an incoming object whose unique value is taken is merged; `.incomingWins`
    /// unless set.
    public var mergePolicy: MergePolicy {
        get { withLock { policy } }
        set { withLock { policy = newValue } }
    }

    /// `true` if anything was inserted, changed or deleted since the last save.
    public var hasChanges: Bool {
        withLock { states.contains(where: \.hasChanges) }
    }

    // MARK: Inserting and deleting

    /// Inserts a new object: it is saved by the next `save()`. If its unique value is
    /// already taken, the next save merges it into the object that has it.
    public func insert(_ object: ManagedObject) {
        withLock {
            switch object.state {
            case .transient:
                let state = self.state(forObjectOf: type(of: object))
                object.cachedEntity = state.entity
                register(object, in: state)
                resolveUniqueValues(of: object, in: state)
            case .standIn:
                break
            case .deleted where object.managedObjectContext === self:
                undelete(object)
            default:
                precondition(
                    object.managedObjectContext === self,
                    "\(object.entity.name) \(object.objectID) already belongs to another context")
            }
        }
    }

    /// Marks an object for deletion at the next save; a new object is simply dropped.
    public func delete(_ object: ManagedObject) {
        withLock {
            let object = object.resolved
            guard object.managedObjectContext === self else { return }
            let state = self.state(for: object.entity)
            switch object.state {
            case .inserted:
                object.state = .transient
                object.managedObjectContext = nil
            case .persisted:
                object.state = .deleted
                state.deleted[ObjectIdentifier(object)] = object
            case .transient, .deleted, .standIn:
                break
            }
        }
    }

    /// Drops every unsaved change: new objects leave the context, changed objects get
    /// their saved values back, deleted objects come back.
    public func rollback() {
        withLock {
            for state in states {
                for object in state.inserted where state.isLive(object) {
                    object.state = .transient
                    object.managedObjectContext = nil
                }
                state.clearInserted()
                for saved in state.updated.values {
                    let object = saved.object
                    if let values = saved.values {
                        object.values = values
                    } else {
                        for attribute in state.entity.attributes
                        where object.changedAttributes.contains(attribute.index) {
                            object.setPrimitiveValue(nil, of: attribute)
                        }
                    }
                    object.changedAttributes.removeAll()
                    if !saved.unloaded.isEmpty {
                        object.unloaded = object.unloaded.union(saved.unloaded)
                        state.partial.append(object)
                    }
                }
                for object in state.deleted.values {
                    object.state = .persisted
                }
                for object in Array(state.updated.values.map(\.object)) + Array(state.deleted.values) {
                    state.index(object, in: self)
                }
                state.updated.removeAll()
                state.deleted.removeAll()
                state.mayHoldDuplicates = false
            }
        }
    }

    /// Forgets every object: unsaved changes are dropped and objects fetched later are
    /// new instances. Frees the memory a long-lived context gathers.
    public func reset() {
        withLock {
            rollback()
            for state in states {
                for object in state.byRowID.values {
                    object.managedObjectContext = nil
                    object.state = .transient
                }
                state.byRowID.removeAll()
                state.uniqueIndexes = state.uniqueIndexes.map { _ in [:] }
                state.unindexed = []
                state.partial.removeAll()
                for index in state.storedKeys { index.forget(generation: container.saveGeneration) }
            }
        }
    }

    // MARK: Bookkeeping

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func state(for entity: EntityDescription) -> EntityState {
        states[stateIndex[ObjectIdentifier(entity)]!]
    }

    /// The state of `type`'s entity, or an error if the container does not store it.
    func state(forType type: ManagedObject.Type) throws -> EntityState {
        let entity = try container.entity(for: type)
        return state(for: entity)
    }

    /// For `insert`, which cannot throw: using a class the container does not store is a
    /// programming error.
    private func state(forObjectOf type: ManagedObject.Type) -> EntityState {
        do {
            return try state(forType: type)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Makes a new object part of this context, as inserted.
    func register(_ object: ManagedObject, in state: EntityState) {
        object.managedObjectContext = self
        object.state = .inserted
        object.temporaryID = nextTemporaryID
        nextTemporaryID += 1
        state.enqueueInsert(object)
        activeJournal?.recordInsert(object)
    }

    /// Makes an object loaded from a row part of this context. Its unique values join the
    /// unique index at the next lookup, unless the caller indexes it (`indexed: false`).
    func registerPersisted(_ object: ManagedObject, rowID: Int64, in state: EntityState, indexed: Bool = true) {
        object.managedObjectContext = self
        object.state = .persisted
        object.rowID = rowID
        state.byRowID[rowID] = object
        if indexed, !state.entity.uniqueAttributes.isEmpty { state.unindexed.append(object) }
        activeJournal?.recordRegistration(object)
    }

    private func undelete(_ object: ManagedObject) {
        let state = self.state(for: object.entity)
        object.state = .persisted
        state.deleted[ObjectIdentifier(object)] = nil
        state.index(object, in: self)
    }

    /// Called before a saved object's first change since its last save (keeps its saved
    /// values for `rollback()`), and before any change while a journal is active.
    func objectWillChange(_ object: ManagedObject) {
        withLock {
            let state = self.state(for: object.entity)
            activeJournal?.recordChange(object, in: state)
            guard object.state == .persisted || object.state == .deleted else { return }
            let id = ObjectIdentifier(object)
            if state.updated[id] == nil {
                state.updated[id] = SavedState(object: object, values: object.values, unloaded: object.unloaded)
            }
        }
    }

    /// Called after a unique attribute changed, to keep the unique index current; a new
    /// object whose new value is taken becomes a stand-in (see `resolveUniqueValues`).
    func uniqueValueDidChange(_ object: ManagedObject) {
        withLock {
            switch object.state {
            case .inserted: resolveUniqueValues(of: object, in: state(for: object.entity))
            case .persisted: state(for: object.entity).index(object, in: self)
            case .transient, .deleted, .standIn: break
            }
        }
    }
}
