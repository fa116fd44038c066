/// Catches, when a container is made, a model that declares `CodingKeys` but leaves its
/// decoding to Stash: the default decoding reads `@Attribute(key:)`, so those keys would be
/// ignored without a word.
///
/// A model with its own `init(from:)` (the Core Data idiom) reads its `CodingKeys` itself
/// and is fine. Which of the two a model has is found by decoding it once from a decoder
/// that answers nothing: the default decoding asks for a container keyed by Stash's
/// `AttributeKey`; a hand-written one asks for something else, or fails on its own.
enum CodingKeysCheck {
    /// Throws `invalidModel` for such a model. Runs before the store is opened, with a
    /// scratch in-memory container of its own, and only for models that declare `CodingKeys`.
    static func check(_ entity: EntityDescription) throws {
        guard let decodable = entity.type as? any Decodable.Type, declaresCodingKeys(entity.type) else { return }
        let scratch = try PersistentContainer(
            types: [entity.type], storeURL: nil, busyTimeout: .zero, checksCodingKeys: false)
        let probe = ProbeDecoder(context: ManagedObjectContext(scratch))
        do {
            _ = try decodable.init(from: probe)
        } catch ProbeDecoder.Finding.keyedContainer(let keyType) where keyType == AttributeKey.self {
            throw StashError(
                .invalidModel,
                "declares CodingKeys but no init(from:), and Stash's decoding does not read CodingKeys: "
                    + "give each attribute its JSON key with @Attribute(key:) and remove CodingKeys, "
                    + "or write init(from:) yourself",
                entity: entity.name)
        } catch {
            // A hand-written init(from:): it reads its own keys.
        }
    }

    /// Whether the class has a nested `CodingKeys` type, looked up by its mangled name.
    private static func declaresCodingKeys(_ type: ManagedObject.Type) -> Bool {
        guard let name = _mangledTypeName(type) else { return false }
        return _typeByName(name + "10CodingKeysO") != nil || _typeByName(name + "10CodingKeysV") != nil
    }
}

/// A decoder that carries a context and refuses every container, saying which was asked.
private struct ProbeDecoder: Decoder {
    enum Finding: Error {
        case keyedContainer(Any.Type)
        case otherContainer
    }

    let context: ManagedObjectContext
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [.managedObjectContext: context] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw Finding.keyedContainer(Key.self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Finding.otherContainer
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Finding.otherContainer
    }
}
