/// Catches, when a container is made, a model that declares `CodingKeys` but leaves its
/// decoding to Stash: the default decoding reads `@Attribute(key:)`, so those keys would be
/// ignored without a word.
///
/// A model with its own `init(from:)` (the Core Data idiom) reads its `CodingKeys` itself
/// and is fine. Which of the two a model has is found by decoding it once from a decoder
/// that answers nothing: the default decoding asks for a container keyed by Stash's
/// `AttributeKey`; a hand-written one asks for something else, or fails on its own.
enum CodingKeysCheck {
    /// The models found fine already: the answer depends on the class alone, so each is
    /// probed once per process, not once per container.
    private static let passed = Locked<Set<ObjectIdentifier>>([])

    /// Throws `invalidModel` for such a model among `entities`. Runs before the store is
    /// opened, only for models that declare `CodingKeys`, with one scratch in-memory container
    /// of all of `models`: a hand-written `init(from:)` may relate its object to the others,
    /// and a container of the model alone was refused for any relationship it had ("relates
    /// to WindowFeed, which is not one of the container's models", though it was).
    static func check(_ entities: [EntityDescription], models: [ManagedObject.Type]) throws {
        let probed = entities.filter { entity in
            entity.type is any Decodable.Type && declaresCodingKeys(entity.type)
                && !passed.withLock { $0.contains(ObjectIdentifier(entity.type)) }
        }
        guard !probed.isEmpty else { return }
        let scratch = try PersistentContainer(types: models, storeURL: nil, busyTimeout: .zero, checksCodingKeys: false)
        let context = ManagedObjectContext(scratch)
        for entity in probed {
            try check(entity, in: context)
            passed.withLock { _ = $0.insert(ObjectIdentifier(entity.type)) }
        }
    }

    private static func check(_ entity: EntityDescription, in context: ManagedObjectContext) throws {
        guard let decodable = entity.type as? any Decodable.Type else { return }
        let probe = ProbeDecoder(context: context)
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
