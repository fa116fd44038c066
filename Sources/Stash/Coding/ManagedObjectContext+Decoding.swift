extension ManagedObjectContext {
    /// Decodes one object of `type` into this context: finds the object its unique value
    /// names, or makes a new one, and sets every attribute the JSON has.
    ///
    /// Keys absent from the JSON leave the attribute as it is: its default for a new
    /// object, its value for an existing one. A missing required key is an error only for
    /// a new object. `null` for a non-optional attribute with a default counts as absent.
    func decodeObject(of type: ManagedObject.Type, from decoder: any Decoder) throws -> ManagedObject {
        let state = try self.state(forType: type)
        let entity = state.entity
        return try withErrorContext(entity, decoder.codingPath) {
            let container = try decoder.container(keyedBy: AttributeKey.self)
            return try withLock {
                // The unique values first: they say which object this is.
                var decoded: [(AttributeDescription, Any)] = []
                var existing: ManagedObject?
                for (index, unique) in entity.uniqueAttributes.enumerated() {
                    guard container.contains(unique.codingKey) else { continue }
                    let value = try decode(unique, from: container)
                    decoded.append((unique, value))
                    if existing == nil, let key = try? unique.codec.sqlValue(for: value), key != .null {
                        existing = state.lookup(index, key, in: self)
                        if existing != nil, mergePolicy.kind == .fail {
                            throw uniqueConflict(entity, unique, key)
                        }
                    }
                }
                if let existing {
                    try update(existing, from: container, decoded: decoded, state: state)
                    return existing
                }
                let object = entity.type.init()
                object.attach(entity)
                for (attribute, value) in decoded {
                    object.setPrimitiveValue(value, of: attribute)
                    object.changedSlots.insert(attribute.slot)
                }
                for attribute in entity.attributes where !attribute.isUnique {
                    guard let value = try decodeIfPresent(attribute, from: container, required: !attribute.hasDefault)
                    else { continue }
                    object.setPrimitiveValue(value, of: attribute)
                    object.changedSlots.insert(attribute.slot)
                }
                for attribute in entity.uniqueAttributes where object.value(of: attribute) == nil {
                    _ = try decode(attribute, from: container)  // throws "key not found"
                }
                register(object, in: state)
                state.index(object, in: self)
                return object
            }
        }
    }

    /// Decodes into an object the context already has. Values are gathered first and
    /// applied only once all decoded, so a failure leaves the object as it was.
    private func update(
        _ object: ManagedObject, from container: KeyedDecodingContainer<AttributeKey>,
        decoded: [(AttributeDescription, Any)], state: EntityState
    ) throws {
        var values = decoded
        for attribute in state.entity.attributes where !attribute.isUnique {
            if let value = try decodeIfPresent(attribute, from: container, required: false) {
                values.append((attribute, value))
            }
        }
        guard mergePolicy.kind == .incomingWins else { return }
        for (attribute, value) in values {
            object.setValue(value, of: attribute)
        }
    }

    private func decode(_ attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>)
        throws -> Any
    {
        do {
            return try attribute.codec.decode(from: container, forKey: attribute.codingKey)
        } catch var error as StashError {
            error.attribute = error.attribute ?? attribute.name
            throw error
        } catch let error as DecodingError {
            throw StashError(decoding: error, attribute: attribute.name)
        }
    }

    /// The attribute's value if its key is present (and, for a defaulted non-optional
    /// attribute, not null); `nil` to leave it as it is.
    private func decodeIfPresent(
        _ attribute: AttributeDescription, from container: KeyedDecodingContainer<AttributeKey>, required: Bool
    ) throws -> Any? {
        if required { return try decode(attribute, from: container) }
        guard container.contains(attribute.codingKey) else { return nil }
        if !attribute.isOptional, try container.decodeNil(forKey: attribute.codingKey) { return nil }
        return try decode(attribute, from: container)
    }

    /// Names the entity (and the coding path) in any error thrown while decoding it.
    private func withErrorContext<Result>(
        _ entity: EntityDescription, _ codingPath: [any CodingKey], _ body: () throws -> Result
    ) throws -> Result {
        do {
            return try body()
        } catch var error as StashError {
            error.entity = error.entity ?? entity.name
            if error.codingPath.isEmpty { error.codingPath = CodingPathText.format(codingPath) }
            throw error
        } catch let error as DecodingError {
            var wrapped = StashError(decoding: error, attribute: nil)
            wrapped.entity = entity.name
            throw wrapped
        }
    }
}

extension StashError {
    /// A `DecodingError` restated with the attribute and the coding path spelled out.
    init(decoding error: DecodingError, attribute: String?) {
        let message: String
        let path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context):
            message = "the required key \"\(key.stringValue)\" is missing"
            path = context.codingPath + [key]
        case .typeMismatch(let type, let context):
            message = "expected \(type): \(context.debugDescription)"
            path = context.codingPath
        case .valueNotFound(let type, let context):
            message = "expected \(type) but found null: \(context.debugDescription)"
            path = context.codingPath
        case .dataCorrupted(let context):
            message = "invalid value: \(context.debugDescription)"
            path = context.codingPath
        @unknown default:
            message = "\(error)"
            path = []
        }
        self.init(.decodingFailed, message, attribute: attribute, codingPath: CodingPathText.format(path))
    }
}
