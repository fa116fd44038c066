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
    /// `decoder` is used as it is configured; its `userInfo` gets this context for the call.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, using decoder: JSONDecoder = JSONDecoder())
        throws -> T
    {
        let previous = decoder.userInfo[.managedObjectContext]
        decoder.userInfo[.managedObjectContext] = self
        defer { decoder.userInfo[.managedObjectContext] = previous }
        // A decode inside another (from a hand-written `init(from:)`) shares its journal:
        // its failure fails the outer one, which undoes both.
        let (journal, isOutermost) = entering { () -> (ChangeJournal, Bool) in
            if let active = activeJournal { return (active, false) }
            let journal = ChangeJournal(unreconciled: unreconciledLists.count)
            activeJournal = journal
            return (journal, true)
        }
        defer { if isOutermost { entering { activeJournal = nil } } }
        do {
            return try decoder.decode(type, from: data)
        } catch {
            if isOutermost { entering { journal.undo(in: self) } }
            throw error
        }
    }
}
