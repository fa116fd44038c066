import Foundation

/// A 64-bit fingerprint of a page's full answer: its body bytes, their length and its
/// `Content-Type`. Kept with the page's validators, so that an API that sends no `ETag` and
/// no `Last-Modified` still costs little to refresh: the same answer again stands for the
/// rows its last decode wrote, as a 304 would (`ImportSession`), and is neither decoded nor
/// saved.
///
/// Not cryptographic: the server that could choose a colliding body could as well send any
/// body it liked. Eight bytes a step with a multiply and a rotation, then a final mix, so a
/// 48 MB body costs about 30M instructions, against about 1,000M to decode it.
struct BodyFingerprint: Equatable {
    let value: UInt64

    init(_ body: Data, contentType: String?) {
        var hash: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(body.count)
        body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let count = bytes.count
            var offset = 0
            while offset + 8 <= count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                hash = Self.step(hash, word)
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                tail |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = Self.step(hash, tail ^ (shift << 56))
        }
        for byte in (contentType ?? "").utf8 { hash = Self.step(hash, UInt64(byte) | 0x100) }
        value = Self.mix(hash)
    }

    /// The fingerprint as kept in the validator's JSON, hexadecimal.
    var text: String { String(value, radix: 16) }

    private static func step(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (word &* 0xff51_afd7_ed55_8ccd)
        return ((hash ^ mixed) << 27 | (hash ^ mixed) >> 37) &* 0xc4ce_b9fe_1a85_ec53 &+ 0x52dc_e729
    }

    /// MurmurHash3's 64-bit finalizer: every input bit moves every output bit.
    private static func mix(_ hash: UInt64) -> UInt64 {
        var hash = hash
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }
}
