import Foundation

/// Stash's own records, kept in the store without a model (see `BookkeepingStore`).
extension PersistentContainer {
    /// Whether the store keeps Stash's own records (an SQLite store does, in a file or in
    /// memory).
    package var keepsBookkeeping: Bool { store is any BookkeepingStore }

    /// The values kept in `table` for those of `keys` it holds.
    package func bookkeepingValues(in table: BookkeepingTable, forKeys keys: [String]) throws -> [String: String] {
        guard let store = store as? any BookkeepingStore else { return [:] }
        return try store.bookkeepingValues(in: table, forKeys: keys)
    }

    /// A digest of what decoding and storing depend on in the entities named: each one's
    /// name, and each attribute's name, JSON key, column type, optionality, uniqueness and
    /// normalization, hexadecimal; `nil` if one is not in the model. StashREST keeps it beside
    /// a page's validators: an answer kept under another model (an app upgrade added an
    /// attribute, renamed a key) stands for nothing, since decoding it again would set what
    /// the rows do not hold yet.
    package func modelDigest(of names: Set<String>) -> String? {
        var digest = RowDigest()
        for name in names.sorted() {
            guard let entity = entities.first(where: { $0.name == name }) else { return nil }
            digest.add(.text(entity.name))
            for attribute in entity.attributes {
                let column = entity.schema.columns[attribute.index]
                digest.add(.text(attribute.name))
                digest.add(.text(attribute.codingKey.stringValue))
                digest.add(.text("\(column.type)"))
                digest.add(.integer((column.isOptional ? 1 : 0) | (column.isUnique ? 2 : 0)))
                digest.add(attribute.normalization.map { .integer(Int64($0.rawValue)) } ?? .null)
            }
        }
        return String(digest.value, radix: 16)
    }

    /// The identity of these rows, in order: a digest of their row ids and unique values
    /// (single and composite), or `nil` when one of them is gone. Kept beside row ids that
    /// must still name the same objects later (a 304's): a row deleted, and its id taken by
    /// another (SQLite reuses the highest row id without `AUTOINCREMENT`) or its unique value
    /// moved to another row, changes the digest where a count of the rows would not change.
    package func rowIdentity(of objectIDs: [ObjectID]) throws -> UInt64? {
        var rowsByEntity: [String: Set<Int64>] = [:]
        for objectID in objectIDs {
            guard let rowID = objectID.rowID else { return nil }
            rowsByEntity[objectID.entityName, default: []].insert(rowID)
        }
        var rowDigests: [String: [Int64: UInt64]] = [:]
        for (name, rowIDs) in rowsByEntity {
            guard let entity = entities.first(where: { $0.name == name }) else { return nil }
            let schema = entity.schema
            let columns = Array(Set(schema.uniqueColumns + schema.uniqueCompounds.flatMap { $0 })).sorted()
            var digests: [Int64: UInt64] = [:]
            try store.fetch(StoreQuery(schema, columns: columns, filter: .rowIDs(rowIDs.sorted()))) { row in
                var digest = RowDigest()
                for position in columns.indices { digest.add(row, column: position) }
                digests[row.rowID] = digest.value
            }
            guard digests.count == rowIDs.count else { return nil }
            rowDigests[name] = digests
        }
        var digest = RowDigest()
        for objectID in objectIDs {
            guard let rowID = objectID.rowID, let row = rowDigests[objectID.entityName]?[rowID] else { return nil }
            digest.add(.text(objectID.entityName))
            digest.add(.integer(rowID))
            digest.add(.integer(Int64(bitPattern: row)))
        }
        return digest.value
    }
}

extension PersistentContainer {
    /// A digest of what `coverage`'s rows hold now in its columns, or `nil` when one of the
    /// rows is gone or a column is no longer there: one query per entity. Kept beside a 304's
    /// rows, it tells whether they still hold what the full answer gave them.
    package func valueDigest(of coverage: [ValueCoverage]) throws -> UInt64? {
        var digest = RowDigest()
        for covered in coverage {
            guard let entity = entities.first(where: { $0.name == covered.entity }) else { return nil }
            let schema = entity.schema
            var columns: [Int] = []
            for name in covered.columns {
                guard let position = schema.columns.firstIndex(where: { $0.name == name }) else { return nil }
                columns.append(position)
            }
            var rows: [Int64: UInt64] = [:]
            if !columns.isEmpty {
                try store.fetch(StoreQuery(schema, columns: columns, filter: .rowIDs(covered.rows))) { row in
                    var values = RowDigest()
                    for position in columns.indices { values.add(row, column: position) }
                    rows[row.rowID] = values.value
                }
            } else {
                // Nothing but the rows themselves: only whether they are there.
                let query = StoreQuery(schema, filter: .rowIDs(covered.rows))
                guard try store.count(query) == covered.rows.count else { return nil }
            }
            digest.add(.text(covered.entity))
            for name in covered.columns { digest.add(.text(name)) }
            for rowID in covered.rows {
                digest.add(.integer(rowID))
                if columns.isEmpty { continue }
                guard let values = rows[rowID] else { return nil }
                digest.add(.integer(Int64(bitPattern: values)))
            }
        }
        return digest.value
    }
}
