import Foundation
import Stash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `fetch`: its pages, one background context that decodes them, and one save (or one
/// per page, `FetchOptions.Saving.perPage`). Nothing reaches the store before the save, so
/// a failure anywhere leaves it as it was.
struct ImportSession<T: ManagedObject & Decodable> {
    let client: RESTClient
    let container: PersistentContainer
    let options: FetchOptions
    let many: Bool
    let scope: SyncScope<T>?
    /// The object the items belong to, when they are one object's children.
    let parent: ImportParent?
    let firstURL: URL
    private let background: ManagedObjectContext
    private let decoded = DecodedObjects()
    private(set) var report = ImportReport()
    /// The objects decoded, once saved, in payload order: for the caller's context.
    private(set) var handover: [HandedOver] = []
    /// Set when a save left out objects the answer made again though a push deleted them
    /// after the request (`ManagedObjectContext.dropObjectsDeleted(since:)`): the pages that
    /// held them keep no validators.
    private var droppedDeleted = false

    init(
        client: RESTClient, container: PersistentContainer, options: FetchOptions, many: Bool,
        scope: SyncScope<T>?, parent: ImportParent? = nil, firstURL: URL
    ) {
        self.parent = parent
        self.client = client
        self.container = container
        self.options = options
        self.many = many
        self.scope = scope
        self.firstURL = firstURL
        self.background = container.newBackgroundContext()
        // What a server sent is no local edit: nothing to push back.
        background.recordsEdits = false
    }

    /// Whether this call sends and keeps validators: the store keeps Stash's records and
    /// neither the client nor the call turned it off.
    private var keepsValidators: Bool {
        options.conditional && client.configuration.keepsValidators && container.keepsBookkeeping
    }

    /// The pages taken since the objects were last handed on, in order: the objects a 304
    /// stood for, or how many the page decoded.
    private var pending: [Part] = []
    /// Every page taken, in order: how many objects it held (what the validators' rows are
    /// cut by) and, for a page answered in full, what to keep for it once saved.
    private var pages: [(objects: Int, fresh: FreshPage?)] = []

    /// The objects the 304s stood for: a sync keeps them.
    private var notModifiedObjects: Set<ObjectID> = []

    /// A `RemoteModel` object's ETag, fetched alone: what the push sends as `If-Match`.
    private var itemETag: String?

    /// Held while the call runs: the operations a push acknowledges meanwhile are noted
    /// (`OutboxWatch`), `nil` for a store without an outbox.
    private var outboxWatch: OutboxWatch?
    /// Taken before the first request was sent: the answers may be older than what a push
    /// acknowledged since, and the saves keep that (`ManagedObjectContext.saveChanges(fetchedAt:)`).
    private var requestedAt: OutboxMark?

    /// The container's counts of saves that changed each entity's rows
    /// (`PersistentContainer.noteRowsChanged`) after this import's last save (before its first
    /// decode, until it saves): while an entity's count moves only by the import's own saves,
    /// no other context changed its rows since the import began decoding, and the digests of
    /// the pages' rows are what the server sent.
    private var ownRowChangeCounts: [UInt64]?
    /// Positions of the entities whose rows another context changed between the first decode
    /// and the import's last save.
    private var changedMeanwhile = Set<Int>()
    /// The container's count of commits by anyone else (another process, another container on
    /// the file: `PersistentContainer.externalCommitCount()`) before the first decode: they
    /// move no row change count, and one that lands before the pages' rows are read for their
    /// records would be taken for what the server sent.
    private var externalCommitsBefore: UInt64?

    enum Part {
        case stored([ObjectID])
        case decoded(Int)
    }

    /// A page answered in full: its URL, its validators and where it led.
    struct FreshPage: Sendable {
        let url: String
        let etag: String?
        let lastModified: String?
        /// The answer's `BodyFingerprint`: kept even without validators, so that the same
        /// answer next time is taken as a 304 would be.
        let body: String?
        let next: String?
        /// Whether validators were kept for the page before: without new ones, they go.
        let hadValidators: Bool
        /// What the decode set, until the save gives its objects rows; then `coverage`.
        var record: DecodedValueRecord?
        var coverage: [ValueCoverage]?

        /// Whether the page changes what is kept: with conditional GET turned off, nothing is.
        var changesRecord: Bool { etag != nil || lastModified != nil || body != nil || hadValidators }
    }

    mutating func run() async throws {
        // One mark for the call, before any request: a page answered after an acknowledgement
        // holds what the push wrote, so keeping the stored values of its columns loses nothing
        // but a server change made after it, until the next fetch.
        outboxWatch = container.watchOutbox()
        requestedAt = outboxWatch?.mark()
        let keeps = keepsValidators
        var url = firstURL
        var visited: Set<URL> = []
        // Pages whose 304 could not stand for the rows kept: asked again without validators.
        var inFull: Set<URL> = []
        var notModifiedPages = 0
        // The page whose 304 led to the one asked for now, where its last full answer led.
        var ledBy: Backtrack?
        // The next pages, asked for while this one decodes.
        let readAhead = PageReadAhead<StoredValidator>(readingAhead(keeps: keeps))
        defer { readAhead.stop() }
        // The pages ahead are asked for in tasks of their own, which the import's cancellation
        // (its deadline, its caller) does not reach: wherever the loop is when it comes (a save,
        // a validator read, a decode), they ask for nothing more.
        try await withTaskCancellationHandler {
            while true {
                guard report.pages < options.pageLimit else {
                    throw RESTError(
                        .tooManyPages,
                        "more than \(options.pageLimit) pages (FetchOptions.pageLimit); nothing was saved",
                        url: url)
                }
                visited.insert(url)
                let stored: StoredValidator?
                let answer: (Data, HTTPURLResponse)
                // Where an answer asked for ahead leads, found already (a 304's or a refused
                // body's is `nil`, and is not asked for below).
                var namedAhead: URL??
                if let asked = readAhead.take(url, number: report.pages + 1) {
                    // The answer is asked for in a task of its own, which the import's cancellation
                    // (its deadline, its caller) does not reach by itself.
                    let waited = ContinuousClock.now
                    let got = try await withTaskCancellationHandler {
                        try await asked.answer.value
                    } onCancel: {
                        asked.answer.cancel()
                    }
                    report.phases.add(\.waiting, since: waited)
                    stored = got.stored
                    answer = (got.data, got.response)
                    namedAhead = .some(got.next)
                } else {
                    stored = keeps && !inFull.contains(url) ? try await storedValidator(for: url) : nil
                    let waited = ContinuousClock.now
                    do {
                        answer = try await client.send(pageRequest(url, stored), progress: options.progress)
                    } catch let error as RESTError
                        where error.code == .status && (error.status == 404 || error.status == 410)
                    {
                        // A 304 need not repeat the `Link` header: the page it led to is where its
                        // last full answer led, and the list may have shrunk since. That page is
                        // asked again in full, once, to learn where it leads now; what its 304
                        // stood for is taken back (a sync keeps only what the answers name).
                        guard let back = ledBy, !inFull.contains(back.page) else { throw error }
                        ledBy = nil
                        report.phases.add(\.waiting, since: waited)
                        stepBack(to: back)
                        notModifiedPages = back.notModifiedPages
                        visited.remove(url)
                        inFull.insert(back.page)
                        url = back.page
                        continue
                    }
                    report.phases.add(\.waiting, since: waited)
                }
                ledBy = nil
                let (data, response) = answer
                if !many, response.statusCode != 304, T.self is any RemoteModel.Type {
                    itemETag = response.value(forHTTPHeaderField: "ETag")
                }
                // A full answer's fingerprint, for a page kept for conditional GET: the same
                // answer as the last full one is taken as a 304 would be.
                let fingerprint =
                    keeps && response.statusCode == 200
                    ? BodyFingerprint(data, contentType: response.value(forHTTPHeaderField: "Content-Type")).text : nil
                var standing: StoredValidator?
                if response.statusCode == 304 {
                    guard let stored else {
                        // Validators were not sent: the 304 stands for nothing.
                        throw RESTError(
                            .unexpectedNotModified,
                            "304 Not Modified, but the request sent no validators (If-None-Match, If-Modified-Since) "
                                + "the client kept an answer for: there is nothing it could stand for",
                            url: response.url ?? url, status: 304)
                    }
                    guard try await stillStands(stored, page: url) else {
                        // Rows the page's last full answer held were deleted, or are other
                        // objects now, or hold other values in what the answer set (a local
                        // edit a full answer would undo): the 304 cannot stand for them; the
                        // page is asked again.
                        inFull.insert(url)
                        continue
                    }
                    standing = stored
                } else if let stored, let fingerprint, stored.body == fingerprint,
                    response.value(forHTTPHeaderField: "ETag") == stored.etag,
                    response.value(forHTTPHeaderField: "Last-Modified") == stored.lastModified,
                    try await stillStands(stored, page: url)
                {
                    // The body is the page's last full answer again, with the same validators (new
                    // ones are kept by a full decode), and the rows still hold what it gave them:
                    // decoding it would change nothing. (When they do not, the body in hand is
                    // decoded below.)
                    try Self.checkContentType(response, data, url, client.configuration)
                    standing = stored
                }
                let next: URL?
                if let stored = standing {
                    let objects = stored.objects
                    // The same body again goes where this answer leads (its `Link` header may have
                    // moved on); so does a 304 that sends a `Link` header, which is not part of the
                    // body its validator stands for (a list that grew past the page, a cursor
                    // replaced). A 304 without one goes where the last full answer of this page led.
                    let followsKept =
                        response.statusCode == 304
                        && !(options.pagination.isLinkHeader && response.value(forHTTPHeaderField: "Link") != nil)
                    if followsKept {
                        ledBy = Backtrack(
                            page: url, report: report, pending: pending.count, notModifiedPages: notModifiedPages)
                    }
                    report.pages += 1
                    if response.statusCode != 304 { report.bytes += data.count }
                    notModifiedPages += 1
                    report.unchanged += stored.distinctObjects
                    pending.append(.stored(objects))
                    pages.append((objects.count, nil))
                    // Only a sync asks what the pages kept.
                    if scope != nil {
                        let added = objects.filter { notModifiedObjects.insert($0).inserted }
                        ledBy?.notModifiedObjects = added
                    }
                    options.progress?.yield(.page(number: report.pages, objects: decoded.count))
                    if followsKept {
                        next = stored.next.flatMap { URL(string: $0) }
                    } else {
                        next = nextURL(after: url, response, data, itemsOnPage: objects.count)
                    }
                } else {
                    report.pages += 1
                    report.bytes += data.count
                    try Self.checkContentType(response, data, url, client.configuration)
                    let etag = response.value(forHTTPHeaderField: "ETag")
                    let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
                    // A page kept for conditional GET records what it sets.
                    let record = keeps ? DecodedValueRecord() : nil
                    // Where the page leads, when the answer says it without being decoded: that
                    // page is asked for while this one decodes, if it was not already.
                    let known = namedAhead ?? Self.knownNext(options.pagination, after: url, response, data)
                    if let known { try readAhead.follow(known, after: url) }
                    let decoding = ContinuousClock.now
                    if keeps, ownRowChangeCounts == nil {
                        let container = self.container
                        (ownRowChangeCounts, externalCommitsBefore) = await background.perform {
                            (container.rowChangeCountsNow, try? container.externalCommitCount())
                        }
                    }
                    let count = try await decode(data, from: response.url ?? url, recording: record)
                    report.phases.add(\.decoding, since: decoding)
                    options.progress?.yield(.page(number: report.pages, objects: decoded.count))
                    next =
                        options.pagination.needsItemCount
                        ? nextURL(after: url, response, data, itemsOnPage: count) : known
                    pending.append(.decoded(count))
                    let page = FreshPage(
                        url: url.absoluteString, etag: etag, lastModified: lastModified, body: fingerprint,
                        next: next?.absoluteString, hadValidators: stored != nil, record: record)
                    pages.append((count, page))
                    if options.saving == .perPage { try await savePage() }
                }
                guard let next else { break }
                // Stopping here would pass for the end of the list, and a sync would delete
                // what the pages never reached.
                guard !visited.contains(next) else {
                    let kept =
                        options.saving == .perPage
                        ? "the pages saved so far stay, nothing was deleted" : "nothing was saved"
                    throw RESTError(
                        .pageCycle,
                        "page \(report.pages) leads back to \(next.absoluteString), fetched already: the pages form a "
                            + "cycle; \(kept)", url: url)
                }
                // A page names the next as it likes: its URL gets the checks a redirect gets.
                try client.configuration.checkStep(from: url, to: next, "the next page's URL")
                url = next
            }
        } onCancel: {
            readAhead.stop()
        }
        report.notModified = notModifiedPages == report.pages
        if report.notModified, scope == nil {
            // Nothing to save: the objects the pages' last full answers held.
            handover += Self.splice(pending, [])
            pending = []
            return
        }
        try await finish()
    }

    /// A page taken from a 304 that goes where its last full answer led, and the import as it
    /// stood before it: taken back if the page it led to is gone. Nothing is saved between
    /// (a 304 saves nothing, nor does a failed request).
    struct Backtrack {
        let page: URL
        let report: ImportReport
        let pending: Int
        let notModifiedPages: Int
        /// The objects the 304 added to those a sync keeps.
        var notModifiedObjects: [ObjectID] = []
    }

    /// Takes back what the 304 of `back.page` counted and kept (its page entry, as many as
    /// the report counted then); the time spent stays.
    private mutating func stepBack(to back: Backtrack) {
        let phases = report.phases
        report = back.report
        report.phases = phases
        pending.removeLast(pending.count - back.pending)
        pages.removeLast(pages.count - report.pages)
        notModifiedObjects.subtract(back.notModifiedObjects)
    }

    /// The request for the page at `url`, with the validators kept for it, if any.
    private func pageRequest(_ url: URL, _ stored: StoredValidator?) -> URLRequest {
        Self.pageRequest(url, stored, client: client, options: options, origin: firstURL)
    }

    private static func pageRequest(
        _ url: URL, _ stored: StoredValidator?, client: RESTClient, options: FetchOptions, origin: URL
    ) -> URLRequest {
        var request = client.request(url, options, origin: origin)
        if let stored {
            if let etag = stored.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let modified = stored.lastModified {
                request.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
            }
        }
        return request
    }

    /// What the pages asked for ahead take from this call: its client and limits, the
    /// validators kept for a page (none if the call keeps none) and where an answer leads
    /// before its decode (none for a 304, nor for a body the loop would refuse).
    private func readingAhead(keeps: Bool) -> PageReadAhead<StoredValidator>.Asking {
        // On a context of their own: the import's is busy with the page that decodes.
        let reading =
            keeps
            ? ValidatorReading(
                container: container, background: container.newBackgroundContext(), parent: parent?.key,
                items: itemsKey) : nil
        let options = self.options
        let firstURL = self.firstURL
        let client = self.client
        return .init(
            client: client, progress: options.progress, pageLimit: options.pageLimit,
            validator: { url in try await reading?.validator(for: url) },
            request: { url, stored in Self.pageRequest(url, stored, client: client, options: options, origin: firstURL)
            },
            next: { url, response, data in
                guard response.statusCode != 304,
                    (try? Self.checkContentType(response, data, url, client.configuration)) != nil
                else { return nil }
                return Self.knownNext(options.pagination, after: url, response, data)
            })
    }

    /// The objects of `parts` in page order: those a 304 stood for by ID, the decoded ones
    /// from `taken`, in the order they were decoded.
    private static func splice(_ parts: [Part], _ taken: [HandedOver]) -> [HandedOver] {
        var result: [HandedOver] = []
        var rest = taken[...]
        for part in parts {
            switch part {
            case .stored(let objects): result += objects.map { HandedOver(id: $0, object: nil) }
            case .decoded(let count):
                result += rest.prefix(count)
                rest = rest.dropFirst(count)
            }
        }
        return result + rest
    }

    /// Where the call finds its objects in a body, for the records it keeps: `"[]"` before the
    /// items' key path for a list (`"[]data"`), the key path alone for one object. One body
    /// may hold several lists (`{"featured": […], "latest": […]}`): what it answered for one
    /// stands for no other.
    private var itemsKey: String { (many ? "[]" : "") + (options.itemsKey ?? "") }

    /// The validators kept for the page at `url`, if they are for this entity and were kept
    /// under this model.
    private func storedValidator(for url: URL) async throws -> StoredValidator? {
        try await validatorReading.validator(for: url)
    }

    private var validatorReading: ValidatorReading {
        ValidatorReading(container: container, background: background, parent: parent?.key, items: itemsKey)
    }

    /// What reading a page's validators takes, apart from the call: the pages asked for ahead
    /// read theirs in their own tasks, on a context of their own (`background` is the one whose
    /// executor the read runs on).
    struct ValidatorReading: Sendable {
        let container: PersistentContainer
        let background: ManagedObjectContext
        let parent: String?
        let items: String

        /// Read on the background context's executor, as all of the import's store work is,
        /// off the cooperative pool.
        func validator(for url: URL) async throws -> StoredValidator? {
            let key = url.absoluteString
            let container = self.container
            let kept = try await background.perform {
                try container.bookkeepingValues(in: .httpValidators, forKeys: [key])[key]
            }
            guard let text = kept,
                let validator = try? JSONDecoder().decode(PageValidator.self, from: Data(text.utf8)),
                validator.entity == String(describing: T.self),
                validator.etag != nil || validator.lastModified != nil || validator.body != nil,
                validator.parent == parent, validator.items == items,
                validator.model == container.modelDigest(of: validator.entities)
            else { return nil }
            return StoredValidator(
                etag: validator.etag, lastModified: validator.lastModified, body: validator.body,
                objects: validator.rows.rowIDs.map { ObjectID(entityName: validator.entity, rowID: $0) },
                identity: UInt64(validator.identity, radix: 16), next: validator.next, covered: validator.covered,
                values: validator.values.flatMap { UInt64($0, radix: 16) })
        }
    }

    /// Whether the rows of a page's last full answer are still the objects it decoded
    /// (`identity`), holding what it gave them (`values`), and none of them was changed by an
    /// earlier page of this call, not saved yet (a nested author two pages share: the full
    /// answer would set its values again, after that page's): only then does a 304, or the
    /// same answer again, stand for them.
    ///
    /// The rows are read only if something was committed to the store since they were last
    /// found so (when their record was written, or at the last such check): see
    /// `PersistentContainer.pageIsVerified`.
    private func stillStands(_ stored: StoredValidator, page url: URL) async throws -> Bool {
        let objects = stored.objects
        let container = self.container
        let covered = stored.covered
        let background = self.background
        let (identity, values) = (stored.identity, stored.values)
        let page = url.absoluteString
        return try await background.perform {
            let changedHere =
                background.hasChanges
                && (covered ?? []).contains { covered in
                    covered.rows.contains { rowID in
                        let id = ObjectID(entityName: covered.entity, rowID: rowID)
                        return background.registeredObject(for: id)?.hasChanges == true
                    }
                }
            // Such a page is decoded in full whatever its rows hold: no need to read them.
            if changedHere { return false }
            if let identity, let values, try container.pageIsVerified(page, identity: identity, values: values) {
                return true
            }
            // Where the store stood before the read: what it finds holds until that moves.
            let stamp = try container.storeStamp()
            let digests = try container.pageDigests(identities: [objects], coverages: covered.map { [$0] } ?? [])
            guard let now = digests.values.first ?? nil, let identity, digests.identities[0] == identity, now == values
            else { return false }
            if let stamp { container.notePageVerified(page, identity: identity, values: now, at: stamp) }
            return true
        }
    }

    /// Decodes one page into the background context; answers how many items it held. With a
    /// `record`, notes what the decode set in each object (`DecodedValueRecord`).
    private func decode(_ data: Data, from url: URL, recording record: DecodedValueRecord?) async throws -> Int {
        let background = self.background
        let decoded = self.decoded
        let makeDecoder = client.configuration.makeDecoder
        let path = options.itemsKey.map { $0.split(separator: ".").map(String.init) } ?? []
        let many = self.many
        let parent = self.parent
        do {
            return try await background.perform {
                let decoder = makeDecoder()
                decoder.userInfo[Enveloped<[T]>.pathKey] = path
                var count = 0
                let decode = {
                    let items: [T]
                    if many {
                        items = try background.decode(Enveloped<[T]>.self, from: data, using: decoder).value
                    } else {
                        items = [try background.decode(Enveloped<T>.self, from: data, using: decoder).value]
                    }
                    // Upcast by copying the references: the implicit `[T]` to `[ManagedObject]`
                    // casts each element at run time (630 instructions an object, twice;
                    // stash-bench's REST import under callgrind).
                    let objects = items.withUnsafeBufferPointer { items in
                        items.withMemoryRebound(to: ManagedObject.self) { Array($0) }
                    }
                    decoded.append(objects)
                    count = objects.count
                    record?.noteUnrecorded(objects)
                }
                let recorded = {
                    guard let record else { return try decode() }
                    try background.recordingDecodedValues(into: record, decode)
                }
                if let parent { try parent.decodingAsChildren(background, recorded) } else { try recorded() }
                return count
            }
        } catch let error as StashError {
            throw RESTError(.decoding, error.description, url: url, body: data, underlying: error)
        } catch let error as DecodingError {
            throw RESTError(
                .decoding, "the body is not the JSON expected: \(error)", url: url, body: data, underlying: error)
        }
    }

    /// The sync's deletions: the objects of the scope (of the parent's children, for a
    /// parent's list) that are not `kept`, deleted in the background context, saved with the
    /// rest.
    private func deleteMissing(keeping kept: Set<ObjectID>) async throws {
        guard let scope else { return }
        let background = self.background
        let parent = self.parent
        let container = self.container
        try await background.perform {
            let descriptor: FetchDescriptor<T>
            switch scope {
            case .all: descriptor = FetchDescriptor<T>()
            case .matching(let predicate): descriptor = FetchDescriptor<T>(predicate: predicate)
            }
            let candidates = try background.fetch(descriptor).filter { !kept.contains($0.objectID) }
            // Objects with local edits still waiting to be pushed (a new one the server has
            // not seen yet) stay: read after the rows, so an edit saved with its row is seen.
            let waiting =
                T.self is any RemoteModel.Type && !candidates.isEmpty
                ? Set(try container.outboxOperations().map(\.objectID)) : []
            for object in candidates where !waiting.contains(object.objectID) {
                // A parent's children: the sync is scoped to them.
                if let parent, !parent.isChild(object) { continue }
                background.delete(object)
            }
        }
    }

    /// The sync's deletions, the save, the validators, the report.
    private mutating func finish() async throws {
        let background = self.background
        let decoded = self.decoded
        let saving = ContinuousClock.now
        if scope != nil {
            try await deleteMissing(keeping: await background.perform { decoded.kept() }.union(notModifiedObjects))
        }
        let inserted = try await save()
        report.phases.add(\.saving, since: saving)
        let recording = ContinuousClock.now
        await settleCoverage()
        if keepsValidators, !droppedDeleted, pages.contains(where: { $0.fresh?.changesRecord == true }) {
            // A transaction of its own, once the objects have row ids: if it fails, the
            // next fetch is a full one, nothing worse.
            let earlier = handover.map(\.id)
            let parts = pending
            let pages = self.pages
            let container = self.container
            let entity = String(describing: T.self)
            let parentKey = parent?.key
            let itemsKey = self.itemsKey
            let ownRowChangeCounts = self.ownRowChangeCounts
            let changedMeanwhile = self.changedMeanwhile
            let externalCommitsBefore = self.externalCommitsBefore
            await background.perform {
                let pendingIDs = decoded.pendingIDs().map { HandedOver(id: $0, object: nil) }
                var ids = (earlier + Self.splice(parts, pendingIDs).map(\.id))[...]
                // The pages whose record changes, with their rows; kept or dropped below.
                var recorded: [(fresh: FreshPage, rows: [ObjectID])] = []
                var values: [String: String?] = [:]
                for (objects, fresh) in pages {
                    let rows = Array(ids.prefix(objects))
                    ids = ids.dropFirst(objects)
                    guard let fresh, fresh.changesRecord else { continue }
                    guard fresh.etag != nil || fresh.lastModified != nil || fresh.body != nil, fresh.coverage != nil
                    else {
                        values[fresh.url] = String?.none
                        continue
                    }
                    recorded.append((fresh, rows))
                }
                // Every page's rows read at once, per entity.
                let none = [UInt64?](repeating: nil, count: recorded.count)
                let (identities, digests) =
                    (try? container.pageDigests(
                        identities: recorded.map(\.rows), coverages: recorded.map { $0.fresh.coverage ?? [] }))
                    ?? (none, none)
                // Another context's change to the rows of an entity the pages cover, since the
                // first decode (up to this read), would be taken for the server's, and a 304
                // would keep it: no record, the next fetch is full. Saves of other entities
                // (another collection synced beside this one) change nothing here.
                let covered = Set(
                    recorded.flatMap { $0.rows.map(\.entityName) + ($0.fresh.coverage ?? []).map(\.entity) })
                let now = container.rowChangeCountsNow
                // Nor another process's commit (or another container's on the file), which no
                // count above sees: any, to whichever table, since the first decode.
                let noneElsewhere =
                    externalCommitsBefore != nil && (try? container.externalCommitCount()) == externalCommitsBefore
                let untouched =
                    noneElsewhere
                    && covered.allSatisfy { name in
                        guard let position = container.entityPosition(named: name) else { return true }
                        return !changedMeanwhile.contains(position) && ownRowChangeCounts?[position] == now[position]
                    }
                // The pages recorded with the digests of the rows as just read.
                var verified: [(page: String, identity: UInt64, values: UInt64)] = []
                for (index, (fresh, rows)) in recorded.enumerated() {
                    guard untouched, let identity = identities[index], let covered = fresh.coverage,
                        let digest = digests[index]
                    else {
                        values[fresh.url] = String?.none
                        continue
                    }
                    verified.append((fresh.url, identity, digest))
                    var validator = PageValidator(
                        etag: fresh.etag, lastModified: fresh.lastModified, entity: entity,
                        rows: RowIDRuns(rows.compactMap(\.rowID)), identity: String(identity, radix: 16),
                        next: fresh.next,
                        covered: covered, values: String(digest, radix: 16), body: fresh.body)
                    validator.model = container.modelDigest(of: validator.entities)
                    validator.parent = parentKey
                    validator.items = itemsKey
                    values[fresh.url] = (try? JSONEncoder().encode(validator)).map {
                        String(decoding: $0, as: UTF8.self)
                    }
                }
                // Nothing committed between the save, the read and this write: the rows hold
                // what the records say until something is, and the next check need not read them.
                if let stamp = try? background.writeBookkeeping(values, in: .httpValidators) {
                    for page in verified {
                        container.notePageVerified(page.page, identity: page.identity, values: page.values, at: stamp)
                    }
                }
            }
        }
        if let etag = itemETag, let requestedAt {
            let container = self.container
            await background.perform {
                // Not for a row whose local edits wait: its ETag stays the one they were made
                // against, so that a change made on the server since is a conflict. Nor for one
                // a push wrote after the request: its answer's ETag is newer, and this one would
                // make the next edit a conflict. The store checks both in the write's transaction.
                guard let id = decoded.pendingIDs().first, let rowID = id.rowID else { return }
                _ = try? container.updateOutbox(
                    etags: [OutboxETag(entityName: id.entityName, rowID: rowID, value: etag)], fetchedAt: requestedAt)
            }
        }
        report.phases.add(\.recording, since: recording)
        let leaving = (entity: String(describing: T.self), rows: inserted)
        let handing = ContinuousClock.now
        let taken = await background.perform { decoded.take(from: background, detaching: leaving) }
        report.phases.add(\.handingOver, since: handing)
        handover += Self.splice(pending, taken)
        pending = []
        // Objects deleted before a save have no row: not the caller's (kept so far, in page
        // order, for the pages' records).
        if droppedDeleted { handover.removeAll { $0.id.rowID == nil } }
        options.progress?.yield(.saved(inserted: report.inserted, updated: report.updated, deleted: report.deleted))
    }

    /// Saves what is decoded so far, unless the task was cancelled; counts it in the report.
    /// Answers the rows of `T`'s entity that the save inserted, ascending.
    private mutating func save() async throws -> [Int64] {
        try Task.checkCancellation()
        let background = self.background
        let decoded = self.decoded
        let entity = String(describing: T.self)
        let requestedAt = self.requestedAt
        let (changes, distinct, saved, dropped) = try await background.perform {
            var dropped = try background.dropObjectsDeleted(since: requestedAt)
            var changes: ChangeSet
            while true {
                do {
                    changes = try background.saveChanges(fetchedAt: requestedAt)
                    break
                } catch is ObjectsDeletedSinceFetch {
                    // A push was acknowledged between the look and the save: look again. Each
                    // time leaves one more object out, so this ends.
                    let more = try background.dropObjectsDeleted(since: requestedAt)
                    guard more > 0 else {
                        throw StashError(
                            .conflict,
                            "the answer holds an object a push deleted after the request, and it is not new here")
                    }
                    dropped += more
                }
            }
            return (changes, decoded.distinctUnsaved(), background.lastRowChangeCounts, dropped)
        }
        if dropped > 0 { droppedDeleted = true }
        if let expected = ownRowChangeCounts, let saved, saved.after != expected {
            // Another save changed an entity's rows between: rows saved before may hold its values.
            for position in expected.indices where saved.before[position] != expected[position] {
                changedMeanwhile.insert(position)
            }
            ownRowChangeCounts = saved.after
        }
        let rows = changes.rows(ofEntityNamed: entity)
        report.inserted += rows.inserted.count
        report.updated += rows.updated.count
        report.deleted += rows.deleted.count
        report.unchanged += max(0, distinct - rows.inserted.count - rows.updated.count)
        return rows.inserted
    }

    /// Saves one page (`FetchOptions.Saving.perPage`): from here on only its objects' IDs
    /// are kept.
    private mutating func savePage() async throws {
        let saving = ContinuousClock.now
        _ = try await save()
        report.phases.add(\.saving, since: saving)
        let recording = ContinuousClock.now
        await settleCoverage()
        report.phases.add(\.recording, since: recording)
        let decoded = self.decoded
        let background = self.background
        let handing = ContinuousClock.now
        let taken = await background.perform {
            decoded.take(from: background, detaching: nil)
        }
        report.phases.add(\.handingOver, since: handing)
        handover += Self.splice(pending, taken)
        pending = []
    }

    /// Once saved, the pages' records become row ids and columns, and let their objects go.
    private mutating func settleCoverage() async {
        let records = pages.enumerated().compactMap { index, page in page.fresh?.record.map { (index, $0) } }
        guard !records.isEmpty else { return }
        let coverage = await background.perform { records.map { ($0, $1.coverage()) } }
        for (index, covered) in coverage {
            pages[index].fresh?.record = nil
            pages[index].fresh?.coverage = covered
        }
    }

    // MARK: Pages

    /// The next page's URL as `options.pagination` finds it, or nil at the end.
    private func nextURL(after url: URL, _ response: HTTPURLResponse, _ data: Data, itemsOnPage: Int) -> URL? {
        switch options.pagination {
        case .none, .linkHeader, .nextURL, .cursor:
            return Self.knownNext(options.pagination, after: url, response, data)
        case .page(let parameter, let first):
            guard itemsOnPage > 0 else { return nil }
            return Self.replacing(parameter, with: String(first + report.pages), in: url)
        case .offset(let parameter, _, let limit):
            guard itemsOnPage >= limit else { return nil }
            return Self.replacing(parameter, with: String(report.pages * limit), in: url)
        }
    }

    /// The next page's URL when the answer names it before its decode (the pagination does
    /// not count the page's items), or nil.
    static func knownNext(
        _ pagination: FetchOptions.Pagination, after url: URL, _ response: HTTPURLResponse, _ data: Data
    ) -> URL? {
        switch pagination {
        case .none, .page, .offset:
            return nil
        case .linkHeader:
            guard let header = response.value(forHTTPHeaderField: "Link") else { return nil }
            return LinkHeader(header).url(for: "next", relativeTo: url)
        case .nextURL(let key):
            guard let next = JSONKeyPathValue.value(at: key, in: data) as? String, !next.isEmpty else { return nil }
            return URL(string: next, relativeTo: url)?.absoluteURL
        case .cursor(let key, let parameter):
            guard let cursor = JSONKeyPathValue.value(at: key, in: data).map({ "\($0)" }), !cursor.isEmpty else {
                return nil
            }
            return Self.replacing(parameter, with: cursor, in: url)
        }
    }

    static func replacing(_ parameter: String, with value: String, in url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        var items = (components.queryItems ?? []).filter { $0.name != parameter }
        items.append(URLQueryItem(name: parameter, value: value))
        components.queryItems = items
        return components.url
    }

    /// A body whose `Content-Type` is not one the configuration accepts is refused before
    /// decoding.
    static func checkContentType(
        _ response: HTTPURLResponse, _ data: Data, _ url: URL, _ configuration: RESTConfiguration
    ) throws {
        guard let type = response.value(forHTTPHeaderField: "Content-Type"), !configuration.accepts(contentType: type)
        else { return }
        let accepted = configuration.acceptedContentTypes.sorted().joined(separator: ", ")
        throw RESTError(
            .notJSON,
            "the body is \(RESTConfiguration.mediaType(type)), not JSON: not one of the accepted content types "
                + "(\(accepted); RESTConfiguration.acceptedContentTypes)", url: response.url ?? url,
            status: response.statusCode, body: data)
    }

    // MARK: Validators

    /// The validators kept for a page URL, and what its last full answer held.
    struct StoredValidator: Sendable {
        let etag: String?
        let lastModified: String?
        /// The answer's `BodyFingerprint`: the same body again stands for the objects as a
        /// 304 would.
        let body: String?
        /// The objects the answer that came with them held.
        let objects: [ObjectID]
        /// Their identity then (`PersistentContainer.pageDigests`): a 304 stands for
        /// them only if it is the same now.
        let identity: UInt64?
        /// Where the answer led: the next page's URL.
        let next: String?
        /// The rows the answer decoded and the columns it set, and their digest then
        /// (`PersistentContainer.pageDigests`): a 304 stands for them only if it is the
        /// same now. `nil` in a record kept before these were.
        let covered: [ValueCoverage]?
        let values: UInt64?

        /// How many objects the answer held, each once (a list may name one twice). All of
        /// one entity: their row ids tell them apart, most often already ascending.
        var distinctObjects: Int {
            let rows = objects.compactMap(\.rowID)
            return rows.ascendsStrictly ? rows.count : Set(objects).count
        }
    }
}

/// The objects an import decoded. Only ever touched inside its background context's
/// `perform`, which runs one closure at a time on that context's executor.
// Unchecked: confined to the background context's executor, as its objects are.
final class DecodedObjects: @unchecked Sendable {
    /// Decoded since the last save.
    private var objects: [ManagedObject] = []
    /// Saved, by ID.
    private var saved: [ObjectID] = []

    var count: Int { saved.count + objects.count }

    func append(_ new: [ManagedObject]) {
        objects += new
    }

    /// The objects decoded since the last save (now saved), each once (a payload may name one
    /// twice). Most often their rows ascend, and that alone proves them distinct.
    /// Not those the save left out (`dropObjectsDeleted(since:)`), the only ones without a row.
    func distinctUnsaved() -> Int {
        let ids = objects.map(\.objectID).filter { $0.rowID != nil }
        let rows = ids.compactMap(\.rowID)
        return rows.count == ids.count && rows.ascendsStrictly ? ids.count : Set(ids).count
    }

    /// What a sync keeps: every object decoded, by ID (a new one's is temporary, and its own).
    func kept() -> Set<ObjectID> {
        Set(saved).union(objects.map(\.objectID))
    }

    /// The IDs of the objects decoded since the last save.
    func pendingIDs() -> [ObjectID] {
        objects.map(\.objectID)
    }

    /// The objects decoded since the last save (now saved), letting them go: their IDs, and,
    /// `detaching` the rows the save inserted (of the entity named), each of those objects
    /// itself, detached from the context, when it can leave (see `DetachedObject`). Only once
    /// decoding is over: a page decoded later might name a detached object's row, and its
    /// save would make the detached objects stale anyway.
    func take(from context: ManagedObjectContext, detaching inserted: (entity: String, rows: [Int64])?)
        -> [HandedOver]
    {
        let ids = objects.map(\.objectID)
        var detached = [DetachedObject?](repeating: nil, count: objects.count)
        if let inserted {
            let rows = Set(inserted.rows)
            detached = context.detach(objects) { entity, rowID in entity == inserted.entity && rows.contains(rowID) }
        }
        let taken = zip(ids, detached).map { HandedOver(id: $0, object: $1) }
        saved += taken.map(\.id)
        objects = []
        return taken
    }
}

/// The saved objects on their way to the caller's context, in batches, the first batch
/// last (taken with `popLast()`, so that each is freed once used).
struct HandOver: Sendable {
    var batches: [[HandedOver]]
    let count: Int

    init(_ objects: [HandedOver], batch: Int) {
        count = objects.count
        batches = stride(from: 0, to: objects.count, by: batch).reversed().map {
            Array(objects[$0..<min($0 + batch, objects.count)])
        }
    }
}

/// A saved object on its way to the caller's context: its ID, and the object itself when it
/// can leave the import's context (`DetachedObject`), so that the caller's context need not
/// read its row back.
struct HandedOver: Sendable {
    let id: ObjectID
    let object: DetachedObject?
}
