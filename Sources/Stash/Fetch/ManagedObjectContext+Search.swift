extension ManagedObjectContext {
    /// The objects whose `.searchable` attributes hold every word of `text`, best match first.
    ///
    /// ```swift
    /// var recent = FetchDescriptor<Entry>(predicate: #Predicate { !$0.read })
    /// recent.fetchLimit = 20
    /// let hits = try context.search(recent, matching: "swift linux")   // ranked
    /// ```
    ///
    /// - The text is words, not a query language: it is split at white space (and control
    ///   characters) and each word is matched as it is written (`c++`, `AND`, `-x`,
    ///   `title:foo`, a lone `"` are words, never an error), every word required. Case and
    ///   diacritics do not count (`cafe` finds "Café"). The last word also matches as a
    ///   prefix (`swift lin` finds "Linux") unless `options` say not to. Text without a word
    ///   gives no hits, not an error.
    /// - The descriptor's predicate filters the hits, its limit and offset page them; they
    ///   are ordered by relevance (BM25), its sort descriptors breaking ties.
    /// - It reads what is saved: an unsaved change is not searched (its object is found, or
    ///   not, by its saved text), except that objects deleted in this context are left out.
    ///   Each hit's object is the context's one instance for the row.
    /// - Any context may search, from its own isolation, as it may fetch.
    ///
    /// An entity without a `.searchable` attribute is an `unsupportedQuery` error.
    public func search<T: ManagedObject>(
        _ descriptor: FetchDescriptor<T>, matching text: String, options: SearchOptions = SearchOptions()
    ) throws -> [SearchHit<T>] {
        try entering {
            try throwPendingLoadError()
            let state = try self.identity.state(forType: T.self)
            guard !state.entity.schema.searchableColumns.isEmpty else {
                throw StashError(
                    .unsupportedQuery, "search needs an attribute declared @Attribute(.searchable)",
                    entity: state.entity.name)
            }
            let terms = Self.searchTerms(in: text)
            guard !terms.isEmpty else { return [] }
            var rows = try descriptor.storeQuery(for: state.entity)
            rows.excludedRowIDs = state.deleted.values.compactMap(\.rowID).sorted()
            try lookForExternalCommits()
            var found: [(ManagedObject, SearchRow)] = []
            try container.store.search(SearchQuery(rows: rows, terms: terms, options: options)) { row, hit in
                found.append((try materialize(row, in: state), hit))
            }
            if !descriptor.prefetching.isEmpty { try prefetch(descriptor.prefetching, of: found.map(\.0), in: state) }
            return found.map { object, hit in
                // Every object of T's entity state is exactly a T (see `fetch`).
                SearchHit(object: unsafeDowncast(object, to: T.self), score: hit.score, snippet: hit.snippet)
            }
        }
    }

    /// The words of a search text: split at white space and control characters (a NUL
    /// would end FTS5's reading of the query early).
    static func searchTerms(in text: String) -> [String] {
        text.split(whereSeparator: { character in
            character.isWhitespace
                || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
        }).map(String.init)
    }
}
