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

    /// A digest of what decoding and storing depend on in the entities named, hexadecimal;
    /// `nil` if one is not in the model: each one's name; each attribute's name, JSON key,
    /// Swift type, column type, optionality, uniqueness and normalization; each relationship's
    /// name, JSON keys, kind, target, order and list decoding; the composite unique
    /// constraints. StashREST keeps it beside a page's validators: an answer kept under
    /// another model (an app upgrade added an attribute or a relationship, renamed a key)
    /// stands for nothing, since decoding it again would set what the rows do not hold yet.
    /// What the decoder's settings and a hand-written `init(from:)` do is not in it.
    package func modelDigest(of names: Set<String>) -> String? {
        if let known = modelDigests.withLock({ $0[names] }) { return known }
        guard let digest = computedModelDigest(of: names) else { return nil }
        modelDigests.withLock { $0[names] = digest }
        return digest
    }

    private func computedModelDigest(of names: Set<String>) -> String? {
        var digest = RowDigest()
        for name in names.sorted() {
            guard let entity = entities.first(where: { $0.name == name }) else { return nil }
            digest.add(.text(entity.name))
            for attribute in entity.attributes {
                let column = entity.schema.columns[attribute.index]
                for text in [
                    attribute.name, attribute.codingKey.stringValue, attribute.codec.typeName, "\(column.type)",
                ] {
                    digest.add(.text(text))
                }
                digest.add(.integer((column.isOptional ? 1 : 0) | (column.isUnique ? 2 : 0)))
                digest.add(attribute.normalization.map { .integer(Int64($0.rawValue)) } ?? .null)
            }
            for relationship in entity.relationships {
                digest.add(.text(relationship.name))
                for (key, isReference) in relationship.jsonKeys {
                    digest.add(.text(key.stringValue))
                    digest.add(.integer(isReference ? 1 : 0))
                }
                digest.add(.text("\(relationship.kind) \(relationship.targetName) \(relationship.decoding)"))
                digest.add(.integer(relationship.isOrdered ? 1 : 0))
            }
            for constraint in entity.schema.uniqueCompounds {
                digest.add(.text(constraint.map(String.init).joined(separator: ",")))
            }
        }
        return String(digest.value, radix: 16)
    }
}
