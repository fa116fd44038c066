import Foundation

extension ManagedObjectContext {
    /// Decodes `type` from `data` into this context, all or nothing: if decoding fails
    /// anywhere (malformed JSON, a wrong type at `[812].publishedAt`), the objects it had
    /// already inserted leave the context and the ones it had changed get their values back,
    /// so the context is exactly as it was and a later `save()` writes none of it.
    ///
    /// ```swift
    /// let posts = try context.decode([Post].self, from: data, using: decoder)
    /// try context.save()
    /// ```
    ///
    /// The recipe, `decoder.decode` with the context in `userInfo`, inserts each object as it
    /// is decoded; after a failure there, `rollback()` drops every unsaved change.
    /// `decoder` is used as it is configured and is not changed: the call decodes with a copy
    /// whose `userInfo` holds this context, so one decoder can serve several contexts at once.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, using decoder: JSONDecoder = JSONDecoder())
        throws -> T
    {
        try withJournal {
            let copy = decoder.copy(for: self)
            // Models with Stash's default decoding are read by the byte-level reader, with
            // the same results and errors (see `ReaderDecodable`); the rest by JSONDecoder.
            if let options = ReaderEligibility.options(for: type, decoder: decoder, container: container),
                TapeDecoder.reads(data)
            {
                return try TapeDecoder.decode(type, from: data, options: options, userInfo: copy.userInfo)
            }
            return try copy.decode(type, from: data)
        }
    }

    /// Told by the byte-level reader as it starts on an array of `count` elements of `type`
    /// whose first is an object: if they are objects of one of the container's models, the
    /// entity's indexes make room for them at once (`EntityState.reserveForNewObjects`).
    /// Objects the context or the store has already leave that room unused. At most
    /// `reservedAtMost` (the room is made before any element is decoded, so a body of a
    /// million `{}` must not reserve for a million); `decodeAndSave` holds one batch at a time,
    /// and makes room for one.
    func expectDecodedObjects(_ count: Int, of type: Any.Type) {
        guard let model = type as? ManagedObject.Type else { return }
        entering {
            guard let state = try? identity.state(forType: model) else { return }
            let room = min(count, decoding.batches?.batchSize ?? Self.reservedAtMost, Self.reservedAtMost)
            state.reserveForNewObjects(room)
        }
    }

    /// The most objects an array makes room for before they are decoded (see
    /// `expectDecodedObjects`): a few megabytes of index.
    static let reservedAtMost = 1 << 17

    /// Decodes a list of `parent`'s children: each object of `Child` decoded takes `parent` as
    /// its `relationship` before it is matched by its unique values, so children unique per
    /// parent (`[\.feed, \.guid]`) find their stored rows, and a re-import makes no second
    /// row. All or nothing, as `decode(_:from:using:)`.
    ///
    /// ```swift
    /// let entries = try context.decode([Entry].self, from: data, using: decoder, parent: feed, via: \.feed)
    /// ```
    ///
    /// The decoded children join the parent's list and none leave it, whatever the list's
    /// `ListDecoding`: a payload of children is a window, and pages come one at a time. (To
    /// make the list the payload's, decode the parent with the list nested in it, or sync with
    /// StashREST's `deletingMissing`, which is scoped to the parent.) The JSON's own value for
    /// `relationship`, if it has one, is not read.
    public func decode<Child: ManagedObject & Decodable, Parent: ManagedObject>(
        _ type: [Child].Type, from data: Data, using decoder: JSONDecoder = JSONDecoder(), parent: Parent,
        via relationship: ReferenceWritableKeyPath<Child, Parent?>
    ) throws -> [Child] {
        try decoding(asChildrenOf: parent, via: relationship) { try decode(type, from: data, using: decoder) }
    }

    /// One child of `parent`, as `decode(_:from:using:parent:via:)` decodes a list of them.
    public func decode<Child: ManagedObject & Decodable, Parent: ManagedObject>(
        _ type: Child.Type, from data: Data, using decoder: JSONDecoder = JSONDecoder(), parent: Parent,
        via relationship: ReferenceWritableKeyPath<Child, Parent?>
    ) throws -> Child {
        try decoding(asChildrenOf: parent, via: relationship) { try decode(type, from: data, using: decoder) }
    }

    /// Runs `body`, a decode into this context, with every `Child` decoded meanwhile taking
    /// `parent` as its `relationship` (see `decode(_:from:using:parent:via:)`). For StashREST,
    /// which decodes pages inside envelopes.
    package func decoding<Child: ManagedObject, Parent: ManagedObject, Result>(
        asChildrenOf parent: Parent, via relationship: ReferenceWritableKeyPath<Child, Parent?>,
        _ body: () throws -> Result
    ) throws -> Result {
        let scope = try entering { () -> DecodingParent in
            let state = try self.identity.state(forType: Child.self)
            let description = try state.entity.relationship(for: relationship)
            guard !description.isToMany else {
                throw StashError(
                    .invalidModel, "a parent is set through a to-one relationship", entity: state.entity.name,
                    attribute: description.name)
            }
            let parent = parent.resolved
            if parent.managedObjectContext == nil, parent.state == .transient { insert(parent) }
            guard parent.managedObjectContext === self, parent.state != .deleted else {
                throw StashError(
                    .invalidModel,
                    "the parent \(parent.entity.name) \(parent.objectID) is not an object of \(name): "
                        + "use existingObject(with:) to get this context's object for it",
                    entity: state.entity.name, attribute: description.name)
            }
            return DecodingParent(entity: state.entity, relationship: description, parent: parent)
        }
        let outer = entering { decoding.parent }
        entering { decoding.parent = scope }
        defer { entering { decoding.parent = outer } }
        return try body()
    }

    /// Runs a decode all or nothing: a decode inside another (from a hand-written
    /// `init(from:)`) shares its journal, and its failure fails the outer one, which undoes
    /// both.
    private func withJournal<Result>(_ body: () throws -> Result) throws -> Result {
        let journal = try entering { () -> ChangeJournal? in
            guard tracker.journal == nil else { return nil }
            try throwPendingLoadError()
            return openJournal()
        }
        guard let journal else { return try body() }
        do {
            let result = try body()
            if let call = journal.refusedCall { throw ChangeJournal.refusal(of: call, in: self) }
            closeJournal(journal, undoing: false)
            return result
        } catch {
            closeJournal(journal, undoing: true)
            throw error
        }
    }

    /// Opens a journal of changes to undo, if none is open: answers it, for the caller to
    /// close (`closeJournal`), or `nil` when one is open already, whose opener closes it.
    /// `context.decode` opens one around a whole decode, the recipe one around each object
    /// with relationships (`ObjectDecoder.decodeObject`).
    func openJournal() -> ChangeJournal? {
        entering {
            guard tracker.journal == nil else { return nil }
            let journal: ChangeJournal
            if let spare = tracker.spareJournal {
                tracker.spareJournal = nil
                spare.begin(unreconciled: graph.unreconciledLists.count, firstNewID: identity.nextTemporaryID)
                journal = spare
            } else {
                journal = ChangeJournal(
                    unreconciled: graph.unreconciledLists.count, firstNewID: identity.nextTemporaryID)
            }
            tracker.journal = journal
            return journal
        }
    }

    /// Closes the journal `openJournal` answered, undoing what it recorded first if the work it
    /// covered failed.
    func closeJournal(_ journal: ChangeJournal, undoing: Bool) {
        entering {
            if undoing { journal.undo(in: self) }
            tracker.journal = nil
            // Emptied at once: what it recorded must not outlive the work it covered.
            journal.reset()
            tracker.spareJournal = journal
        }
    }
}

extension JSONDecoder {
    /// A decoder configured as this one, with `context` in its `userInfo`: the caller's
    /// decoder is never changed, so two contexts may decode with it at once.
    func copy(for context: ManagedObjectContext) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = dateDecodingStrategy
        copy.dataDecodingStrategy = dataDecodingStrategy
        copy.keyDecodingStrategy = keyDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        copy.allowsJSON5 = allowsJSON5
        copy.assumesTopLevelDictionary = assumesTopLevelDictionary
        var userInfo = self.userInfo
        userInfo[.managedObjectContext] = context
        copy.userInfo = userInfo
        return copy
    }
}
