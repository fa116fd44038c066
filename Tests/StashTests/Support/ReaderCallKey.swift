/// The probe's keys: `snakeKey` is `snake_key` as `.convertFromSnakeCase` gives it.
enum ReaderCallKey: String, CodingKey {
    /// `a` is the key of the object values (`{"a": 1}`): a nested container lists only the
    /// keys its `Key` has.
    case v, list, absent, a
    case snakeKey
    case snakeRaw = "snake_key"
    /// Canonically equal to the payload's decomposed `cafe\u{301}`: Swift strings compare so.
    case café
    /// A full-width look-alike of `v`, which is another key.
    case fullWidthV = "ｖ"
}
