import Foundation

/// Runs the call `userInfo[DecoderCall.key]` names on its decoder.
struct DecoderCallProbe: Decodable {
    let outcome: String

    init(from decoder: any Decoder) throws {
        outcome = try (decoder.userInfo[DecoderCall.key] as! DecoderCall).run(decoder)
    }
}
