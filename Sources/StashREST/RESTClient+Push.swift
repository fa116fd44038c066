import Foundation
import Stash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Local edits back to the API: the outbox of `RemoteModel` edits, sent in order.
///
/// ```swift
/// let pushed = try await api.push(container)   // PushReport: sent, conflicts, failed
/// ```
extension RESTClient {
    /// Sends every operation waiting in `container`'s outbox, in the order they were saved
    /// (a parent's `POST` before its children's), and writes each answer into its row.
    ///
    /// - Each request carries the operation's `Idempotency-Key`, made when it was recorded
    ///   and sent again unchanged, with the same body, after a timeout or a crash; a `PATCH`
    ///   or `DELETE` carries `If-Match` with the ETag last seen for the row.
    /// - A 2xx answer's body (server-set fields: its ids, timestamps) is decoded into the row,
    ///   and the operation leaves the outbox in that same transaction; its `ETag` is kept.
    /// - 412 and 409 are conflicts, resolved by `policy` (see `PushConflictPolicy`).
    /// - 5xx, 429 and transport failures are retried as `configuration.retry` says, then
    ///   left for the next push, unchanged; another 4xx stops that operation, which is kept
    ///   with the server's message and sent again, as a new request, by the next push (a
    ///   child refused because its parent was refused goes through once the parent has).
    ///   Either way the object's later operations wait behind it, and the push goes on with
    ///   the other objects.
    ///
    /// Each write goes over a connection of its own, closed after its answer: on Linux,
    /// FoundationNetworking resends a request without its body when a reused keep-alive
    /// connection drops, which a write must never meet.
    ///
    /// `progress` hears after each operation how many are done, and finishes with the call.
    ///
    /// Pushes of one container run one after another in a process (`PushQueue`); a push of
    /// the same store from another process is not held back.
    ///
    /// Throws only when the store fails (or the task is cancelled): what the server said is
    /// in the report.
    public func push(
        _ container: PersistentContainer, conflicts policy: PushConflictPolicy = .serverWins,
        progress: AsyncStream<PushProgress>.Continuation? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> PushReport {
        defer { progress?.finish() }
        return try await PushQueue.run(for: container) { try await pushWaiting(container, policy, progress) }
    }

    /// Every operation of the outbox, in order (see `push`).
    private func pushWaiting(
        _ container: PersistentContainer, _ policy: PushConflictPolicy,
        _ progress: AsyncStream<PushProgress>.Continuation?
    ) async throws -> PushReport {
        var report = PushReport()
        var blocked = Set<ObjectID>()
        // Server-set keys (`RemoteModel.remoteKey`) that this push's `POST`s learnt.
        var keys: [ObjectID: String] = [:]
        let operations = try container.outboxOperations()
        var etags = try container.rowETags(operations.map(\.objectID))
        for (done, operation) in operations.enumerated() {
            defer { progress?.yield(PushProgress(done: done + 1, total: operations.count)) }
            try Task.checkCancellation()
            let id = operation.objectID
            if blocked.contains(id) {
                report.waiting += 1
                continue
            }
            guard let type = container.remoteModelType(named: operation.entityName) else {
                report.failed.append(
                    PushFailure(
                        objectID: id, method: operation.method.rawValue, status: nil,
                        message: "\(operation.entityName) is not a RemoteModel of this container"))
                report.waiting += 1
                blocked.insert(id)
                continue
            }
            var name = operation.key
            if operation.method != .post, name.isEmpty {
                // Recorded before the server named the object: its POST's answer did since.
                var known = keys[id]
                if known == nil {
                    known = try await container.performBackgroundTask { context in
                        try context.remoteKey(for: operation)
                    }
                }
                guard let known else {
                    report.failed.append(
                        PushFailure(
                            objectID: id, method: operation.method.rawValue, status: nil,
                            message:
                                "the server's key for it is not known yet (its POST has not been answered, "
                                + "or it was never read back from the API)"))
                    report.waiting += 1
                    blocked.insert(id)
                    continue
                }
                name = known
            }
            if let etag = try await push(
                operation, named: name, type, container, etag: etags[id], policy, &report, learning: &keys)
            {
                etags[id] = etag
            } else {
                report.waiting += 1
                blocked.insert(id)
            }
        }
        return report
    }

    /// Sends one operation: the row's ETag after it (`""` for none) once acknowledged, or
    /// `nil` when it stays in the outbox.
    /// `name` is what names the object in its item path (the operation's key, or the server's
    /// key learnt since); a `POST` answer's server-set key goes into `keys`.
    private func push(
        _ operation: OutboxOperation, named name: String, _ type: any RemoteModel.Type,
        _ container: PersistentContainer, etag: String?, _ policy: PushConflictPolicy, _ report: inout PushReport,
        learning keys: inout [ObjectID: String]
    ) async throws -> String? {
        let method = operation.method.rawValue
        // A refused operation applied nothing and goes as a new request: its body is made again
        // from the row, which holds any fix saved since, even one saved while it was in flight
        // (which could not merge into it then). Resent as it was, it was refused on every push.
        var body = operation.failure == nil ? operation.body : nil
        if operation.method != .delete, body == nil {
            let makeEncoder = configuration.makeEncoder
            body = try await container.performBackgroundTask { context in
                try context.outboxBody(for: operation, using: makeEncoder())
            }
            guard body != nil else {
                // The row is gone since (its DELETE follows): nothing to send.
                try container.updateOutbox(acknowledged: [operation.sequence])
                return ""
            }
        }
        // Refused before, so applied nothing: sent again as a new request (a parent refused
        // then has gone through since, or the server changed its mind).
        var key = operation.failure == nil ? operation.idempotencyKey : UUID().uuidString.lowercased()
        let attempt = OutboxAttempt(
            sequence: operation.sequence, body: body, idempotencyKey: key == operation.idempotencyKey ? nil : key,
            merged: operation.merged)
        guard try container.updateOutbox(attempted: attempt) else {
            // An edit merged into it since it was read, which `body` may miss: read it again
            // (gone: a new object deleted since, nothing to send).
            guard let again = try container.outboxOperations().first(where: { $0.sequence == operation.sequence })
            else { return "" }
            return try await push(
                again, named: name, type, container, etag: etag, policy, &report, learning: &keys)
        }
        let url = try remoteURL(type, named: operation.method == .post ? nil : name)
        var ifMatch = operation.method == .post ? nil : etag
        var conflict: PushConflict?
        while true {
            var request = self.request(url, FetchOptions(), origin: url)
            request.httpMethod = method
            request.httpBody = body
            if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
            request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
            request.setValue(ifMatch, forHTTPHeaderField: "If-Match")
            request.setValue("close", forHTTPHeaderField: "Connection")
            let transport = HTTPTransport(configuration: configuration, sessionConfiguration: .ephemeral)
            defer { transport.invalidate() }
            do {
                let (data, response) = try await send(request, progress: nil, via: transport) { report.retried += 1 }
                let etag = try await acknowledge(operation, type, answer: data, response, container)
                if operation.method == .post,
                    let learnt = container.remoteKey(ofEntity: operation.entityName, inAnswer: data)
                {
                    keys[operation.objectID] = learnt
                }
                report.sent += 1
                report.coalesced += operation.merged
                if let conflict { report.conflicts.append(conflict) }
                return etag ?? ""
            } catch let error as RESTError where error.code == .status && error.status != nil {
                let status = error.status ?? 0
                if operation.method == .delete, status == 404 || status == 410 {
                    // Gone already: what the DELETE asked for.
                    _ = try await acknowledge(operation, type, answer: Data(), nil, container)
                    report.sent += 1
                    return ""
                }
                // A new object the server has not named yet has no version there to read back:
                // its refused POST stays, as another refusal does (read back from `<path>/`, it
                // was dropped, and the object was never sent).
                if status == 412 || status == 409, conflict == nil, !name.isEmpty {
                    var found = PushConflict(
                        objectID: operation.objectID, method: method, status: status, localValues: body,
                        serverMessage: error.message, resolution: .serverWins)
                    found.resolution = policy.resolve(found)
                    if found.resolution == .localWins {
                        // The server applied nothing: the same change again, as a new request.
                        conflict = found
                        ifMatch = nil
                        key = UUID().uuidString.lowercased()
                        try container.updateOutbox(
                            attempted: OutboxAttempt(sequence: operation.sequence, body: body, idempotencyKey: key))
                        continue
                    }
                    do {
                        let etag = try await refetch(operation, named: name, type, container)
                        report.conflicts.append(found)
                        return etag ?? ""
                    } catch let error as RESTError {
                        report.failed.append(
                            PushFailure(
                                objectID: operation.objectID, method: method, status: error.status,
                                message:
                                    "a conflict (\(status)), and its object could not be read back: \(error.message)"
                            ))
                        return nil
                    }
                }
                if (400..<500).contains(status), status != 429 {
                    try container.updateOutbox(failed: (operation.sequence, "HTTP \(status): \(error.message)"))
                }
                report.failed.append(
                    PushFailure(objectID: operation.objectID, method: method, status: status, message: error.message))
                return nil
            } catch let error as RESTError {
                report.failed.append(
                    PushFailure(objectID: operation.objectID, method: method, status: nil, message: error.message))
                return nil
            }
        }
    }

    /// `<remotePath>` or `<remotePath>/<name>` against the base URL; a `remotePath` that ends
    /// with `/` (linkding's `api/bookmarks/`) gives item paths that end with one too.
    private func remoteURL(_ type: any RemoteModel.Type, named name: String?) throws -> URL {
        guard let name else { return try url(for: type.remotePath, FetchOptions()) }
        // One path segment whatever the key holds: ASCII letters, digits, "-", "_" and "~" as
        // they are, everything else percent-encoded, dots too, so that a key ".." is not a
        // dot segment the transport folds into the collection's parent.
        let allowed = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~")
        let key = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        let path = type.remotePath.hasSuffix("/") ? type.remotePath + key + "/" : type.remotePath + "/" + key
        return try url(for: path, FetchOptions())
    }

    /// Writes the server's answer (a JSON object) into the row and removes the operation from
    /// the outbox, in one transaction; keeps the answer's ETag. An answer that does not
    /// decode into the model, or whose row was deleted here since, is not written, and the
    /// operation is acknowledged all the same: the server applied it. Answers the ETag.
    private func acknowledge(
        _ operation: OutboxOperation, _ type: any RemoteModel.Type, answer data: Data, _ response: HTTPURLResponse?,
        _ container: PersistentContainer, decoding: Bool? = nil
    ) async throws -> String? {
        let etag = operation.method == .delete ? nil : response?.value(forHTTPHeaderField: "ETag")
        let etags = [OutboxETag(entityName: operation.entityName, rowID: operation.rowID, value: etag)]
        // A server-set key: the object's later operations, recorded before it, name it so.
        let keys =
            operation.method == .post
            ? container.remoteKey(ofEntity: operation.entityName, inAnswer: data).map {
                [OutboxKey(entityName: operation.entityName, rowID: operation.rowID, value: $0)]
            } ?? [] : []
        let makeDecoder = configuration.makeDecoder
        let decodes = (decoding ?? (operation.method != .delete)) && Self.isJSONObject(data)
        // A row deleted here since the write was sent keeps its deletion (its DELETE
        // follows): decoding the answer would make the object again. After a conflict the
        // server wins, and its object comes back.
        let reinserts = decoding ?? false
        let written = try await container.performBackgroundTask { context -> Bool in
            context.recordsEdits = false
            if decodes, reinserts || (try? context.existingObject(with: operation.objectID)) != nil {
                do {
                    try Self.decodeAnswer(type, data, into: context, using: makeDecoder())
                } catch is DecodingError {
                    return false
                } catch let error as StashError where error.code == .decodingFailed || error.code == .missingValue {
                    return false
                }
            }
            // A copy a fetch brought back while the deletion waited goes with it.
            try context.deleteObjectsNamed(by: operation)
            try context.saveAcknowledging([operation.sequence], etags: etags, keys: keys)
            return true
        }
        if !written { try container.updateOutbox(acknowledged: [operation.sequence], etags: etags, keys: keys) }
        return etag
    }

    /// After a conflict the server wins: its version of the object is read into the row (or
    /// the row deleted, when the server has none), and the local operation is dropped with it.
    private func refetch(
        _ operation: OutboxOperation, named name: String, _ type: any RemoteModel.Type, _ container: PersistentContainer
    ) async throws -> String? {
        let url = try remoteURL(type, named: name)
        do {
            let (data, response) = try await send(self.request(url, FetchOptions(), origin: url), progress: nil)
            return try await acknowledge(operation, type, answer: data, response, container, decoding: true)
        } catch let error as RESTError where error.status == 404 || error.status == 410 {
            try await container.performBackgroundTask { context in
                context.recordsEdits = false
                if let object = try? context.existingObject(with: operation.objectID) { context.delete(object) }
                try context.saveAcknowledging(
                    [operation.sequence],
                    etags: [OutboxETag(entityName: operation.entityName, rowID: operation.rowID, value: nil)])
            }
            return nil
        }
    }

    private static func decodeAnswer<T: RemoteModel>(
        _ type: T.Type, _ data: Data, into context: ManagedObjectContext, using decoder: JSONDecoder
    ) throws {
        _ = try context.decode(T.self, from: data, using: decoder)
    }

    private static func isJSONObject(_ data: Data) -> Bool {
        data.first { !" \t\r\n".utf8.contains($0) } == UInt8(ascii: "{")
    }
}
