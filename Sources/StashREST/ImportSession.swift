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
    let firstURL: URL
    private let background: ManagedObjectContext
    private let decoded = DecodedObjects()
    private(set) var report = ImportReport()
    /// The objects decoded, once saved, in payload order: for the caller's context.
    private(set) var handover: [HandedOver] = []

    init(
        client: RESTClient, container: PersistentContainer, options: FetchOptions, many: Bool,
        scope: SyncScope<T>?, firstURL: URL
    ) {
        self.client = client
        self.container = container
        self.options = options
        self.many = many
        self.scope = scope
        self.firstURL = firstURL
        self.background = container.newBackgroundContext()
    }

    /// Whether the container keeps validators (`HTTPValidator` is one of its models).
    private var keepsValidators: Bool {
        options.conditional && container.entityNames.contains(String(describing: HTTPValidator.self))
    }

    mutating func run() async throws {
        let background = self.background
        let key = firstURL.absoluteString
        var stored =
            keepsValidators ? try await background.perform { try Self.validator(for: key, in: background) } : nil
        var url = firstURL
        var visited: Set<URL> = []
        var responseValidators: (etag: String?, lastModified: String?)?
        while true {
            guard report.pages < options.pageLimit else {
                throw RESTError(
                    .tooManyPages, "more than \(options.pageLimit) pages (FetchOptions.pageLimit); nothing was saved",
                    url: url)
            }
            visited.insert(url)
            var request = client.request(url, options, origin: firstURL)
            if report.pages == 0, let stored {
                if let etag = stored.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
                if let modified = stored.lastModified {
                    request.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
                }
            }
            let (data, response) = try await client.send(request, progress: options.progress)
            report.pages += 1
            report.bytes += data.count
            if response.statusCode == 304, report.pages == 1, let validator = stored {
                let objects = validator.objects
                if try await background.perform({ try background.rowsExist(for: objects) }) {
                    report.notModified = true
                    // A sync still deletes what the unchanged answer does not hold.
                    if scope != nil {
                        try await deleteMissing(keeping: Set(objects))
                        _ = try await save()
                    }
                    handover = objects.map { HandedOver(id: $0, object: nil) }
                    return
                }
                // Rows of the last full answer were deleted since: the 304 cannot stand for
                // them, so the same URL is asked again, in full.
                stored = nil
                report.pages = 0
                continue
            }
            if response.statusCode == 304 {
                // Validators were not sent, or name no answer kept: the 304 stands for nothing.
                throw RESTError(
                    .unexpectedNotModified,
                    "304 Not Modified, but the request sent no validators (If-None-Match, If-Modified-Since) "
                        + "the client kept an answer for: there is nothing it could stand for",
                    url: response.url ?? url,
                    status: 304)
            }
            try Self.checkContentType(response, data, url, client.configuration)
            if report.pages == 1 {
                responseValidators = (
                    response.value(forHTTPHeaderField: "ETag"), response.value(forHTTPHeaderField: "Last-Modified")
                )
            }
            let count = try await decode(data, from: response.url ?? url)
            options.progress?.yield(.page(number: report.pages, objects: decoded.count))
            if options.saving == .perPage { try await savePage() }
            guard let next = nextURL(after: url, response, data, itemsOnPage: count) else { break }
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
        try await finish(validators: responseValidators)
    }

    /// Decodes one page into the background context; answers how many items it held.
    private func decode(_ data: Data, from url: URL) async throws -> Int {
        let background = self.background
        let decoded = self.decoded
        let makeDecoder = client.configuration.makeDecoder
        let path = options.itemsKey.map { $0.split(separator: ".").map(String.init) } ?? []
        let many = self.many
        do {
            return try await background.perform {
                let decoder = makeDecoder()
                decoder.userInfo[Enveloped<[T]>.pathKey] = path
                if many {
                    let items = try background.decode(Enveloped<[T]>.self, from: data, using: decoder).value
                    decoded.append(items)
                    return items.count
                }
                decoded.append([try background.decode(Enveloped<T>.self, from: data, using: decoder).value])
                return 1
            }
        } catch let error as StashError {
            throw RESTError(.decoding, error.description, url: url, body: data, underlying: error)
        } catch let error as DecodingError {
            throw RESTError(
                .decoding, "the body is not the JSON expected: \(error)", url: url, body: data, underlying: error)
        }
    }

    /// The sync's deletions: the objects of the scope that are not `kept`, deleted in the
    /// background context, saved with the rest.
    private func deleteMissing(keeping kept: Set<ObjectID>) async throws {
        guard let scope else { return }
        let background = self.background
        try await background.perform {
            let descriptor: FetchDescriptor<T>
            switch scope {
            case .all: descriptor = FetchDescriptor<T>()
            case .matching(let predicate): descriptor = FetchDescriptor<T>(predicate: predicate)
            }
            for object in try background.fetch(descriptor) where !kept.contains(object.objectID) {
                background.delete(object)
            }
        }
    }

    /// The sync's deletions, the save, the validators, the report.
    private mutating func finish(validators: (etag: String?, lastModified: String?)?) async throws {
        let background = self.background
        let decoded = self.decoded
        if scope != nil {
            try await deleteMissing(keeping: await background.perform { decoded.kept() })
        }
        var inserted = try await save()
        if keepsValidators, let validators, validators.etag != nil || validators.lastModified != nil {
            // A transaction of its own, once the objects have row ids: if it fails, the
            // next fetch is a full one, nothing worse.
            let key = firstURL.absoluteString
            let earlier = handover.compactMap(\.id.rowID)
            let chained = await background.perform { () -> Bool in
                let imported = background.lastSave?.after
                let rows = earlier + decoded.pendingIDs().compactMap(\.rowID)
                try? Self.keep(validators, for: key, rows: rows, in: background)
                guard (try? background.save()) != nil else { return false }
                return background.lastSave?.before == imported
            }
            // The objects are detached after this save; if another save came between the
            // two, they may be stale: none leave, their rows are read.
            if !chained { inserted = [] }
        }
        let leaving = inserted
        handover += await background.perform { decoded.take(inserted: leaving, from: background, detaching: true) }
        options.progress?.yield(.saved(inserted: report.inserted, updated: report.updated, deleted: report.deleted))
    }

    /// Saves what is decoded so far, unless the task was cancelled; counts it in the report.
    /// Answers what the save inserted.
    private mutating func save() async throws -> Set<ObjectID> {
        try Task.checkCancellation()
        let background = self.background
        let decoded = self.decoded
        let entity = String(describing: T.self)
        let (changes, distinct) = try await background.perform {
            let changes = try background.saveChanges()
            return (changes, decoded.distinctUnsaved())
        }
        let inserted = changes.inserted.filter { $0.entityName == entity }.count
        let updated = changes.updated.filter { $0.entityName == entity }.count
        report.inserted += inserted
        report.updated += updated
        report.deleted += changes.deleted.filter { $0.entityName == entity }.count
        report.unchanged += max(0, distinct - inserted - updated)
        return changes.inserted
    }

    /// Saves one page (`FetchOptions.Saving.perPage`): from here on only its objects' IDs
    /// are kept.
    private mutating func savePage() async throws {
        let inserted = try await save()
        let decoded = self.decoded
        let background = self.background
        handover += await background.perform {
            decoded.take(inserted: inserted, from: background, detaching: false)
        }
    }

    // MARK: Pages

    /// The next page's URL as `options.pagination` finds it, or nil at the end.
    private func nextURL(after url: URL, _ response: HTTPURLResponse, _ data: Data, itemsOnPage: Int) -> URL? {
        switch options.pagination {
        case .none:
            return nil
        case .linkHeader:
            guard let header = response.value(forHTTPHeaderField: "Link") else { return nil }
            return LinkHeader(header).url(for: "next", relativeTo: url)
        case .nextURL(let key):
            guard let next = jsonValue(at: key, in: data) as? String, !next.isEmpty else { return nil }
            return URL(string: next, relativeTo: url)?.absoluteURL
        case .cursor(let key, let parameter):
            guard let cursor = jsonValue(at: key, in: data).map({ "\($0)" }), !cursor.isEmpty else { return nil }
            return Self.replacing(parameter, with: cursor, in: url)
        case .page(let parameter, let first):
            guard itemsOnPage > 0 else { return nil }
            return Self.replacing(parameter, with: String(first + report.pages), in: url)
        case .offset(let parameter, _, let limit):
            guard itemsOnPage >= limit else { return nil }
            return Self.replacing(parameter, with: String(report.pages * limit), in: url)
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

    struct StoredValidator: Sendable {
        let etag: String?
        let lastModified: String?
        /// The objects the answer that came with them held.
        let objects: [ObjectID]
    }

    static func validator(for url: String, in context: ManagedObjectContext) throws -> StoredValidator? {
        let descriptor = FetchDescriptor<HTTPValidator>(predicate: #Predicate { $0.url == url })
        guard let validator = try context.fetch(descriptor).first else { return nil }
        let entity = String(describing: T.self)
        guard validator.entity == entity else { return nil }
        let objects = validator.rowIDs.map { ObjectID(entityName: entity, rowID: $0) }
        return StoredValidator(etag: validator.etag, lastModified: validator.lastModified, objects: objects)
    }

    static func keep(
        _ validators: (etag: String?, lastModified: String?), for url: String, rows: [Int64],
        in context: ManagedObjectContext
    ) throws {
        let descriptor = FetchDescriptor<HTTPValidator>(predicate: #Predicate { $0.url == url })
        let validator = try context.fetch(descriptor).first ?? HTTPValidator(context: context)
        validator.url = url
        validator.etag = validators.etag
        validator.lastModified = validators.lastModified
        validator.entity = String(describing: T.self)
        validator.rowIDs = rows
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

    /// The objects decoded since the last save, each once (a payload may name one twice).
    func distinctUnsaved() -> Int {
        Set(objects.map(\.objectID)).count
    }

    /// What a sync keeps: every object decoded, by ID (a new one's is temporary, and its own).
    func kept() -> Set<ObjectID> {
        Set(saved).union(objects.map(\.objectID))
    }

    /// The IDs of the objects decoded since the last save.
    func pendingIDs() -> [ObjectID] {
        objects.map(\.objectID)
    }

    /// The objects decoded since the last save (now saved), letting them go: their IDs, and
    /// each object that `inserted` holds itself, detached from the context, when it can
    /// leave (see `DetachedObject`). Only once decoding is over (`detaching`): a page
    /// decoded later might name a detached object's row, and its save would make the
    /// detached objects stale anyway.
    func take(inserted: Set<ObjectID>, from context: ManagedObjectContext, detaching: Bool) -> [HandedOver] {
        let ids = objects.map(\.objectID)
        let detached = context.detach(objects) { detaching && inserted.contains($0.objectID) }
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
