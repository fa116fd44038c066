import Foundation
import Synchronization

/// Owns the schema of a set of model classes and the store that keeps them: an SQLite file
/// (or memory) here, a PostgreSQL database through StashPostgres.
///
/// ```swift
/// let container = try PersistentContainer(for: Article.self, Author.self, storeURL: url)
/// let scratch = try PersistentContainer(for: Article.self, inMemory: true)
/// let same = try PersistentContainer(for: Article.self, Author.self, store: .file(url))
/// ```
///
/// Opening a file creates it if needed and migrates its tables to the models (see
/// `SchemaMigrator`). A container is `Sendable`: make one per store and share it; make a
/// `ManagedObjectContext` for each unit of work. Its contexts share one connection.
public final class PersistentContainer: Sendable {
    /// The store file, `nil` for an in-memory store or one that is not a file (PostgreSQL).
    public let storeURL: URL?
    let entities: [EntityDescription]
    /// Each entity's position in `entities`, by its class: the container's look-up by type,
    /// and each context's (`IdentityMap`) for its states, which are in the same order.
    let positionsByType: [ObjectIdentifier: Int]
    /// Per entity, the to-one relationships (of any entity) whose column points at its rows:
    /// what deleting one of its objects must look at.
    let incomingRelationships: [ObjectIdentifier: [RelationshipDescription]]
    let store: any Store
    /// `modelDigest(of:)` by the names asked: the model does not change, and StashREST asks
    /// twice a page.
    let modelDigests = Locked<[Set<String>: String]>([:])
    /// Counts the saves of all contexts of the container, so that a context's caches of
    /// stored facts can tell whether another context wrote since they learned them.
    private let saves = Atomic<UInt64>(0)
    /// Per entity, by position: how many saves changed or deleted its stored rows
    /// (`noteRowsChanged`). StashREST's fetch compares them around its own saves: another
    /// context's change to the rows of its pages would pass for the server's in its validators.
    private let rowChangeCounts: Locked<[UInt64]>
    /// StashREST's pages last found as their records say, and when (see `VerifiedPages`).
    let verifiedPages = Locked(VerifiedPages())
    /// How many times `pageDigests` read rows: what a check that `verifiedPages` spares does not.
    package let pageDigestReads = Atomic<Int>(0)

    /// Opens (or creates) the store `store` describes for these model classes: a file, memory,
    /// or (through StashPostgres) a PostgreSQL database.
    ///
    /// Opening only reads the store unless the models need a migration. A file Stash did not
    /// make is refused (`foreignStore`) and left untouched. The store keeps the highest
    /// `schemaVersion` that opened it: a model that would drop a unique index or let a NOT
    /// NULL column take NULL needs a higher one, so that an older model (an older app) cannot
    /// undo what a newer one made; one with a lower version opens the store only if it needs
    /// no migration. Raise it in the release whose model drops an attribute, a `.unique` or
    /// makes an attribute optional.
    public convenience init(for types: ManagedObject.Type..., store: StoreDescription, schemaVersion: Int = 0) throws {
        try self.init(types: types, store: store, schemaVersion: schemaVersion)
    }

    /// Opens (or creates) the SQLite file at `storeURL` for these model classes: the same as
    /// `store: .file(storeURL, lockTimeout: busyTimeout, readOnly: readOnly)`.
    ///
    /// `busyTimeout` is how long a write (a save, or a migration on open) waits for another
    /// process's write transaction to end before it fails with a "database is locked" error.
    /// A store Stash cannot write (a read-only file, or one in a read-only directory) is
    /// opened read-only, as it is with `readOnly: true`: fetches work, and a save fails with
    /// `readOnlyStore`, naming the file, leaving the context's changes in place.
    public convenience init(
        for types: ManagedObject.Type..., storeURL: URL, busyTimeout: Duration = .seconds(5), schemaVersion: Int = 0,
        readOnly: Bool = false
    ) throws {
        try self.init(
            types: types, store: .file(storeURL, lockTimeout: busyTimeout, readOnly: readOnly),
            schemaVersion: schemaVersion)
    }

    /// A private store in memory (`inMemory: true`, the same as `store: .inMemory`), gone
    /// with the container; or, with `false`, the store `default.sqlite` in the user's
    /// application support directory.
    public convenience init(for types: ManagedObject.Type..., inMemory: Bool) throws {
        if inMemory {
            try self.init(types: types, store: .inMemory)
        } else {
            let directory = try FileManager.default.url(
                for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
            try self.init(types: types, store: .file(directory.appendingPathComponent("default.sqlite")))
        }
    }

    convenience init(
        types: [ManagedObject.Type], storeURL: URL?, busyTimeout: Duration, schemaVersion: Int = 0,
        readOnly: Bool = false, checksCodingKeys: Bool = true
    ) throws {
        try self.init(
            types: types,
            store: storeURL.map { .file($0, lockTimeout: busyTimeout, readOnly: readOnly) } ?? .inMemory,
            schemaVersion: schemaVersion, checksCodingKeys: checksCodingKeys)
    }

    package convenience init(
        types: [ManagedObject.Type], store: StoreDescription, schemaVersion: Int = 0, checksCodingKeys: Bool = true
    ) throws {
        try self.init(
            types: types, storeURL: store.url, schemaVersion: schemaVersion, checksCodingKeys: checksCodingKeys
        ) { schemas in try store.open(schemas, schemaVersion) }
    }

    /// A container around the store `makeStore` opens for the models' schemas (the tables of
    /// the entities and join tables); `init(types:store:)` passes a `StoreDescription`'s
    /// `open`, which is how StashPostgres comes in. `storeURL` is the file, `nil` for any
    /// other store; `schemaVersion` is checked here
    /// (not below 0); each store keeps it and applies its rule (see `SchemaMigrator`).
    package init(
        types: [ManagedObject.Type], storeURL: URL? = nil, schemaVersion: Int = 0, checksCodingKeys: Bool = true,
        makeStore: ([EntitySchema]) throws -> any Store
    ) throws {
        guard !types.isEmpty else {
            throw StashError(.invalidModel, "a container needs at least one model class")
        }
        guard schemaVersion >= 0 else {
            throw StashError(.invalidModel, "the schemaVersion \(schemaVersion) is below 0")
        }
        let entities = try types.map { try EntityRegistry.shared.entity(for: $0) }
        var byName: [String: EntityDescription] = [:]
        for entity in entities {
            if byName.updateValue(entity, forKey: entity.name) != nil {
                throw StashError(.invalidModel, "two model classes share the name \(entity.name)", entity: entity.name)
            }
        }
        for entity in entities {
            try Self.checkRelationships(of: entity, among: byName)
        }
        // After the relationships: its probe decodes in a scratch container of these models.
        if checksCodingKeys { try CodingKeysCheck.check(entities, models: types) }
        self.storeURL = storeURL
        self.entities = entities
        rowChangeCounts = Locked(Array(repeating: 0, count: entities.count))
        self.positionsByType = EntityDescription.positionsByType(entities)
        var incoming: [ObjectIdentifier: [RelationshipDescription]] = [:]
        for entity in entities {
            for relationship in entity.relationships where !relationship.isToMany {
                incoming[ObjectIdentifier(relationship.targetType), default: []].append(relationship)
            }
        }
        self.incomingRelationships = incoming
        var schemas = try entities.map { try $0.storeSchema() }
        // Each many-to-many relationship's join table, once for both sides.
        for entity in entities {
            for relationship in entity.relationships {
                guard let join = try relationship.joinTable(), !schemas.contains(where: { $0.name == join.schema.name })
                else { continue }
                if entities.contains(where: { $0.name == join.schema.name }) {
                    throw StashError(
                        .invalidModel,
                        "the join table of \(relationship.name) would take the name of the entity \(join.schema.name)",
                        entity: entity.name, attribute: relationship.name)
                }
                schemas.append(join.schema)
            }
        }
        let store = try makeStore(schemas)
        self.store = store
        self.externalCommits = Locked(ExternalCommits(token: store.isShared ? try store.changeToken() : nil))
    }

    /// Every relationship's target must be one of the container's models, and its inverse,
    /// declared on either side, must point back at it.
    private static func checkRelationships(of entity: EntityDescription, among byName: [String: EntityDescription])
        throws
    {
        for relationship in entity.relationships {
            guard let target = byName[relationship.targetName], target.type == relationship.targetType else {
                throw StashError(
                    .invalidModel,
                    "relates to \(relationship.targetName), which is not one of the container's models: add "
                        + "\(relationship.targetName).self",
                    entity: entity.name, attribute: relationship.name)
            }
            let inverse = try relationship.inverse()
            if let inverse, let back = try inverse.inverse(), back !== relationship {
                throw StashError(
                    .invalidModel,
                    "its inverse \(target.name).\(inverse.name) names \(back.entityName).\(back.name) as its own inverse",
                    entity: entity.name, attribute: relationship.name)
            }
            _ = try relationship.joinTable()
        }
    }

    package var saveGeneration: UInt64 { saves.load(ordering: .acquiring) }

    /// `mainContext`, once made.
    let mainContextStorage = Locked<ManagedObjectContext?>(nil)
    /// The contexts that hear of each other's saves.
    let contextList = Locked<[ContextAddress]>([])
    /// Who listens to `changes`.
    let changeListeners = Locked(ChangeListeners())
    /// The continuations of `outboxStates()`, told of outbox writes that are no save.
    let outboxListeners = Locked(OutboxListeners())
    /// The store's notifications of other processes' commits, started with the first context
    /// or listener of `changes` (see `PersistentContainer+Notifications`).
    let notifications = Locked(NotificationState.notStarted)

    deinit {
        notifications.withLock { $0.listening }?.stop()
    }

    /// Numbers contexts for their names in messages.
    private let contextCount = Atomic<Int>(0)

    /// A name for a new context: `context 3 (on MainActor)`, `context 4 (unconfined)`.
    func nextContextName(_ confinement: Confinement) -> String {
        let number = contextCount.wrappingAdd(1, ordering: .relaxed).newValue
        switch confinement {
        case .main: return "context \(number) (on MainActor)"
        case .background: return "background context \(number)"
        case .actor(let actor): return "context \(number) (on \(type(of: actor)))"
        case .unconfined: return "context \(number) (unconfined)"
        }
    }

    /// Commits to the file by anyone else, counted (see `ExternalCommits`).
    let externalCommits: Locked<ExternalCommits>

    /// How many commits by anyone else the container knows of, after looking at the store's
    /// change token now (SQLite's `PRAGMA data_version`, PostgreSQL's commit count); 0 for a
    /// store in memory.
    package func externalCommitCount() throws -> UInt64 {
        guard store.isShared else { return 0 }
        return externalCommitCount(token: try store.changeToken())
    }

    /// How many commits by anyone else the container knows of, after looking at `token`,
    /// the store's change token read just now.
    func externalCommitCount(token: Int64) -> UInt64 {
        externalCommits.withLock { $0.observe(token) }
    }

    /// How many commits by anyone else the container knew of at its last look.
    var externalCommitsCounted: UInt64 { externalCommits.withLock { $0.count } }

    /// Counts a committed save's changed and deleted rows, per entity (every entity for `nil`:
    /// an import in batches); answers the counts before and after, taken at once.
    func noteRowsChanged(_ note: SaveNote?) -> (before: [UInt64], after: [UInt64]) {
        rowChangeCounts.withLock { counts in
            let before = counts
            for position in counts.indices {
                let changed =
                    note.map { note in
                        note.unlisted.contains(position)
                            || (position < note.entities.count
                                && (!note.entities[position].updated.isEmpty
                                    || !note.entities[position].deleted.isEmpty))
                    } ?? true
                if changed { counts[position] &+= 1 }
            }
            return (before, counts)
        }
    }

    /// `noteRowsChanged`'s counts now, by entity position.
    package var rowChangeCountsNow: [UInt64] { rowChangeCounts.withLock { $0 } }

    /// The position of the entity named `name`, if the container stores it.
    package func entityPosition(named name: String) -> Int? {
        entities.firstIndex { $0.name == name }
    }

    /// Records a committed save; returns the generation before and after it.
    func noteSave() -> (before: UInt64, after: UInt64) {
        let (before, after) = saves.wrappingAdd(1, ordering: .acquiringAndReleasing)
        return (before, after)
    }

    /// The names of the entities (tables) this container stores.
    public var entityNames: [String] { entities.map(\.name) }

    /// The description of `type`, or an error naming it if it is not one of the models.
    func entity(for type: ManagedObject.Type) throws -> EntityDescription {
        guard let position = positionsByType[ObjectIdentifier(type)] else {
            throw StashError.notAModel(type, of: entityNames)
        }
        return entities[position]
    }
}
