import Foundation

/// What Stash knows of Foundation's JSONDecoder's own `Decoder` type, learned once by decoding
/// a probe: the type itself, and whether its `superDecoder(forKey:)` answers a missing key with
/// a decoder of `null` (the protocol allows throwing `keyNotFound`; other decoders do, and a
/// decoder could trap). `ObjectDecoder.ownKeyTarget` relies on that answer, so it asks for a
/// to-one's own key that way only with this decoder, and only if the probe saw it.
enum JSONDecoderKind {
    /// JSONDecoder's decoder type, if its super decoder of a missing key reads as `null`.
    private static let decoderAnsweringMissingKeysWithNull: ObjectIdentifier? = {
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data("{}".utf8)) else { return nil }
        return probe.missingKeyReadsAsNull ? probe.decoderType : nil
    }()

    /// Whether `decoder` is JSONDecoder's and answers a missing key with a decoder of `null`.
    static func answersMissingKeysWithNull(_ decoder: any Decoder) -> Bool {
        guard let known = decoderAnsweringMissingKeysWithNull else { return false }
        return ObjectIdentifier(type(of: decoder)) == known
    }

    private struct Probe: Decodable {
        let decoderType: ObjectIdentifier
        let missingKeyReadsAsNull: Bool

        private enum Keys: CodingKey {
            case missing
        }

        init(from decoder: any Decoder) throws {
            decoderType = ObjectIdentifier(type(of: decoder))
            let container = try decoder.container(keyedBy: Keys.self)
            let value = try? container.superDecoder(forKey: .missing).singleValueContainer()
            missingKeyReadsAsNull = value?.decodeNil() == true
        }
    }
}
