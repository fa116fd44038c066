/// FNV-1a, 64 bits: small, stable across runs and platforms (unlike `Hasher`). It names an
/// untitled, unlinked feed item (`EntryIdentity`) and the demo server's ETags.
enum FNV1a {
    static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
