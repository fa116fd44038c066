import Foundation

/// Whether a decode of a type with a decoder's settings goes through the reader: decided
/// once per type (the probe below) and per call from the settings (`ReaderOptions`), never
/// in the middle of a payload.
enum ReaderEligibility {
    private static let known = Locked([ObjectIdentifier: Bool]())

    /// The reader's options for decoding `type` with `decoder`, or nil to use JSONDecoder.
    static func options<T>(for type: T.Type, decoder: JSONDecoder, container: PersistentContainer) -> ReaderOptions? {
        if decoder.userInfo[.byteReaderDisabled] as? Bool == true { return nil }
        guard let options = ReaderOptions(decoder) else { return nil }
        let models: [ManagedObject.Type]
        if let model = type as? ManagedObject.Type, type is any Decodable.Type {
            models = [model]
        } else if let carrier = type as? any ReaderDecodable.Type {
            models = carrier.readerModelTypes
        } else {
            return nil
        }
        guard !models.isEmpty else { return nil }
        let id = ObjectIdentifier(type)
        if let answer = known.withLock({ $0[id] }) { return answer ? options : nil }
        // A context of the probe's own, never saved (see `DefaultDecodingProbe`).
        let probeContext = ManagedObjectContext(container, confinement: .unconfined, name: "Stash reader probe")
        let answer = models.allSatisfy { usesDefaultDecodingThroughout($0, probeContext) }
        // What a hand-written `init(from:)` inserted there holds the context, which holds it:
        // dropped, or the pair would keep the container (and every later save's note) alive.
        probeContext.reset()
        known.withLock { $0[id] = answer }
        return answer ? options : nil
    }

    /// Whether `model` and every model its relationships reach decode by default.
    private static func usesDefaultDecodingThroughout(_ model: ManagedObject.Type, _ context: ManagedObjectContext)
        -> Bool
    {
        var seen = Set<ObjectIdentifier>()
        var pending = [model]
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            guard usesDefaultDecoding(next, context) else { return false }
            guard let entity = try? EntityRegistry.shared.entity(for: next) else { return false }
            for relationship in entity.relationships { pending.append(relationship.targetType) }
        }
        return true
    }

    /// Whether `model`'s `init(from:)` is Stash's default one: it is run once with a probe
    /// decoder, and the default's first step (`ManagedObjectContext.carried(by:decoding:)`)
    /// recognizes the probe and stops there. A hand-written `init(from:)` finds the probe's
    /// own context and asks it for a container, which fails, and is never taken for the
    /// default. A model that is not `Decodable` decodes nothing and passes.
    static func usesDefaultDecoding(_ model: ManagedObject.Type, _ context: ManagedObjectContext) -> Bool {
        guard let decodable = model as? any Decodable.Type else { return true }
        do {
            _ = try decodable.init(from: DefaultDecodingProbe(context: context))
            return false
        } catch is DefaultDecodingProbe.Reached {
            return true
        } catch {
            return false
        }
    }
}
