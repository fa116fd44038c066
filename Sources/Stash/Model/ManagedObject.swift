import Observation
import Synchronization

/// The base class of every stored model: a final subclass is both an entity of the store
/// and, when it says `Decodable`, the JSON mapping of a REST resource.
///
/// ```swift
/// final class Post: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Attribute var title: String
/// }
/// let post = Post(context: context)   // inserted; saved by the next save()
/// ```
///
/// An object belongs to at most one context and, like the context's other objects, is
/// used from one isolation domain at a time: it is deliberately not `Sendable`. Pass its
/// `objectID` across instead.
open class ManagedObject: SendableMetatype {
    /// Where this class's wrappers are, which hold the values (see `ObjectLayout`).
    final let layout: ObjectLayout
    final var cachedEntity: EntityDescription?
    /// Set while the object's context reports reads and writes to Observation
    /// (`ManagedObjectContext.observesObjects`). Unchecked for the reason `state` is: it is
    /// read on every property read.
    @exclusivity(unchecked) @usableFromInline final var isObserved = false
    #if DEBUG
        /// What the debug check on reads (`checkRead`) needs of the context, kept in step
        /// with `managedObjectContext`. Unchecked for the reason `isObserved` is.
        @exclusivity(unchecked) final var readGuard = ReadGuard()
    #endif

    #if DEBUG
        /// The context that tracks this object, if any. Kept alive by the object, so that its
        /// relationships and attributes not loaded yet can always be read: an object outlives
        /// the variable that held its context (see `RegisteredObjects`).
        @exclusivity(unchecked) public internal(set) final var managedObjectContext: ManagedObjectContext? {
            // The debug check on reads follows the object into and out of contexts.
            didSet { readGuard = managedObjectContext?.readGuard ?? ReadGuard() }
        }
    #else
        /// The context that tracks this object, if any. Kept alive by the object, so that its
        /// relationships and attributes not loaded yet can always be read: an object outlives
        /// the variable that held its context (see `RegisteredObjects`). (Debug builds declare
        /// it with an observer, for the check on reads; release builds as it is here.)
        /// Unchecked for the reason `state` is: registering each fetched object set it through
        /// the runtime's check, about 85 instructions an object of a fetch's 16.7k.
        @exclusivity(unchecked) public internal(set) final var managedObjectContext: ManagedObjectContext?
    #endif
    // Unchecked, these and the other fields every read, edit and save of the object tests
    // (`changedAttributes`, `restatedAttributes`, `unloaded`, `standIn`, `rowIsGone`): the
    // object is used from one isolation at a time (see `Confinement`), and the runtime's
    // check on each access cost 29 calls of about 85 instructions an edited object (edit +
    // save went from 542.2M to 491.0M instructions, stash-bench under callgrind, 20,000 records).
    @exclusivity(unchecked) final var state = LifecycleState.transient
    /// The row's `_pk` once saved (or matched to a stored row).
    final var rowID: Int64?
    /// Identifies the object before it has a row.
    final var temporaryID: UInt64 = 0
    /// Attributes assigned since the last save (for new objects: assigned at all, as opposed
    /// to left at their default), by position.
    @exclusivity(unchecked) final var changedAttributes = AttributeSet()
    /// Attributes of a saved object set since the last save to the value the context last
    /// saw: no change as far as the context knows (`hasChanges` leaves them out), but the
    /// save compares them with the row inside its transaction and writes those the row no
    /// longer holds (another process moved on), so what the caller set is what is stored.
    @exclusivity(unchecked) final var restatedAttributes = AttributeSet()
    /// How many commits by other processes its container knew of when the object was loaded
    /// or last refreshed from its row (see `ExternalCommits`).
    @exclusivity(unchecked) final var externalCommitsSeen: UInt64 = 0
    /// Attributes whose stored value is not loaded yet: an object decoded for a stored row
    /// the context had not loaded holds only what the JSON gave it until one of the others
    /// is read (see `FaultLoader.fulfill`).
    @exclusivity(unchecked) final var unloaded = AttributeSet()
    /// The object this one stands in for: a new object whose unique value another object
    /// of its context already had (see `UniqueResolver.resolveUniqueValues`).
    @exclusivity(unchecked) @usableFromInline final var standIn: ManagedObject?
    /// Set when another context deleted the object's row: the object has left its context's
    /// identity map and fetches, and a change made to it fails the next save (`rowMissing`).
    @exclusivity(unchecked) final var rowIsGone = false
    /// Set while `awakeFromInsert()` runs (see `ChangeTracker.awaken`).
    @exclusivity(unchecked) final var isAwakening = false
    /// The choice `insert(_:onMatch:)` was given for this new object, until it is matched;
    /// `nil`: the context's merge policy decides. (Beside `rowIsGone`, in its padding.)
    final var uniqueMatch: UniqueMatch?
    /// Tells Observation of reads and writes, for a context that reports them: made by the
    /// first read it reports (see `observeAccess`); boxed, see `RegistrarBox`.
    final var registrar: RegistrarBox?
    // Unchecked, as `state` and the others above are, these two: both are tested on every read
    // of a relationship (about 170 instructions a read in stash-bench's graph fetch, callgrind).
    /// For the probe object that finds which attribute a key path reads: the slots read
    /// (to-many relationships as `-(index + 1)`).
    @exclusivity(unchecked) final var probedSlots: [Int]?
    /// The to-many relationships' objects, by index, once loaded or set.
    @exclusivity(unchecked) final var toManyLists: [ToManyList?]?
    /// The to-many relationships (by index) whose list changed since it was loaded or saved:
    /// the next save writes what changed in a many-to-many list's join rows (`JoinWrite`),
    /// and a one-to-many list's places (`PositionWrite`).
    final var changedLists: Set<Int> = []
    /// The table that lists this object by its row (`RegisteredObjects`), which the object
    /// leaves as it is deinitialized; `registeredRowID` is its key there.
    final var registration: RegisteredObjects?
    final var registeredRowID: Int64 = 0
    /// The fetch that last answered the object and its place in the answer (the fetch's
    /// number in the high half), for the to-one reads that load their neighbours' targets
    /// (`FetchedRows`); 0 for none. Unchecked, as `state` is.
    @exclusivity(unchecked) final var fetchPlace: UInt64 = 0

    /// A blank object, in no context. Subclasses that add designated initializers must
    /// keep this one: fetching builds objects with it.
    public required init() {
        let frame = ConstructionFrame.unretainedCurrent
        let layout = frame._withUnsafeGuaranteedRef { $0.layout(of: Self.self) }
        self.layout = layout
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0,
            frame._withUnsafeGuaranteedRef({ $0.isDescribing })
        {
            frame.takeUnretainedValue().described(
                self, declarationNumbers: layout.assignSlots(of: self, reportingOld: true))
        } else {
            layout.assignSlots(of: self)
        }
    }

    #if DEBUG
        /// Traps unless the caller is in the isolation of the object's context, for a read of
        /// the attribute or to-one relationship at `slot` (or, `toMany`, the to-many one at
        /// that index). Debug builds only: release builds check writes and entry points.
        /// One function with few locals: every call and local costs in a debug build, where a
        /// plain read is about 800 instructions.
        @usableFromInline
        final func checkRead(atSlot slot: Int, toMany: Bool = false) {
            switch readGuard.kind {
            case .none: return
            case .main: if isOnMainActor { return }
            case .queue: if readGuard.executor!._withUnsafeGuaranteedRef({ $0.isRunningJob }) { return }
            case .unconfined: if readGuard.context!._withUnsafeGuaranteedRef({ $0.hasNoOtherOccupant }) { return }
            case .actor: return readGuard.context!._withUnsafeGuaranteedRef { $0.checkActorOfRead() }
            }
            readGuard.context!.takeUnretainedValue().checkMisplacedRead(of: self, atSlot: slot, toMany: toMany)
        }
    #endif

    /// A new object inserted into `context`, saved by its next `save()`.
    deinit {
        registration?.forget(self, clearing: false)
    }

    public convenience init(context: ManagedObjectContext) {
        self.init()
        context.insert(self)
    }

    /// A new object inserted into `context` with `match` saying what happens if its unique
    /// value turns out to be taken (see `UniqueMatch`). It is blank when inserted, so it is
    /// matched when its unique attribute is set: under `.adopt`, what is set before that is
    /// for a new row only, and what is set after is an edit of the stored object.
    ///
    /// ```swift
    /// let feed = Feed(context: context, onMatch: .adopt)
    /// feed.title = "(loading…)"   // before the unique value: kept only if the feed is new
    /// feed.url = url              // a stored feed's object from here on, with its own title
    /// ```
    public convenience init(context: ManagedObjectContext, onMatch match: UniqueMatch) {
        self.init()
        context.insert(self, onMatch: match)
    }

    // MARK: Life-cycle hooks (Core Data's names and moments)
    //
    // Each default does nothing; a model that overrides none pays one empty call per object.
    // A hook runs on the context's executor, like any use of the object.

    /// Called once, when a new object joins a context: made in code (`init(context:)`,
    /// `insert`), decoded as new, or made as a placeholder for a reference. Set defaults that
    /// need code here (`firstSeen = Date()`). Values the object was given before (set before
    /// `insert`, or decoded from JSON) win over what this sets, as in Core Data, where
    /// `init(from:)` decodes after `init(context:)` awoke the object.
    open func awakeFromInsert() {}

    /// Called by `save()` for each inserted, changed and deleted object, before anything is
    /// checked or written. It may set attributes; that save writes them.
    open func willSave() {}

    /// Called by `delete(_:)` before the relationships' delete rules run, while related
    /// objects are still there to read.
    open func prepareForDeletion() {}

    /// Called by `save()`, after `willSave()`, for each new object: a throw fails the save,
    /// nothing is written, and the error names the object (`StashError.Code.validationFailed`
    /// wraps an error that is not a `StashError`).
    open func validateForInsert() throws {}

    /// `validateForInsert()` for each changed object that has a row.
    open func validateForUpdate() throws {}

    /// The identity of this object: its row once saved, a temporary one before.
    public final var objectID: ObjectID {
        if let standIn { return standIn.objectID }
        return ObjectID(entityName: entity.name, rowID: rowID, temporaryID: temporaryID)
    }

    /// `true` if the object is new: inserted into a context and not yet saved.
    public final var isInserted: Bool { resolved.state == .inserted }
    /// `true` if the object was deleted and the deletion is not yet saved.
    public final var isDeleted: Bool { resolved.state == .deleted }
    /// `true` once the context knows that another context or process deleted the object's
    /// row: its attributes not loaded read as their type's empty value (`nil`, `0`, `""`),
    /// its relationships not loaded as `nil` or `[]`, and a change to it fails the next save
    /// (`StashError.Code.rowMissing`). Values it had loaded read as they were.
    public final var isRowDeleted: Bool { resolved.rowIsGone }
    /// `true` if the object has unsaved changes.
    public final var hasChanges: Bool {
        let object = resolved
        switch object.state {
        case .inserted, .deleted: return true
        case .persisted: return !object.changedAttributes.isEmpty || !object.changedLists.isEmpty
        case .transient, .standIn: return false
        }
    }

    /// The object this one stands for: itself, or the one it stands in for.
    @usableFromInline final var resolved: ManagedObject {
        var object = self
        while let next = object.standIn { object = next }
        return object
    }

    /// The schema of this object's class, built on first use.
    final var entity: EntityDescription {
        if let cachedEntity { return cachedEntity }
        // `try!`: the context checked the model when it was created; an object of a class
        // that cannot become an entity never gets this far in a context.
        let entity = try! EntityRegistry.shared.entity(for: type(of: self))
        cachedEntity = entity
        return entity
    }
}

/// Where an object is in its life with a context.
enum LifecycleState {
    /// In no context.
    case transient
    /// Inserted, not yet saved.
    case inserted
    /// Has a row; changes are tracked in `changedAttributes`.
    case persisted
    /// Deleted, deletion not yet saved.
    case deleted
    /// Stands in for another object of its context that has its unique value
    /// (`ManagedObject.standIn`); it is never saved itself.
    case standIn
}
