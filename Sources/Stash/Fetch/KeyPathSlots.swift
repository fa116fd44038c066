/// The slot each key path a query named reads (see `EntityDescription.member(for:)`), found
/// first by the key path's identity among the last few asked for: a key path literal is one
/// object for the life of the process, and hashing one walks its components (about 700 of a
/// look-up's 50k instructions, callgrind), where `===` is one comparison.
struct KeyPathSlots {
    private var slots: [AnyKeyPath: Int] = [:]
    private var recent: [(keyPath: AnyKeyPath, slot: Int)] = []
    private static let recentCount = 4

    mutating func slot(of keyPath: AnyKeyPath) -> Int? {
        for entry in recent where entry.keyPath === keyPath { return entry.slot }
        guard let slot = slots[keyPath] else { return nil }
        remember(keyPath, slot)
        return slot
    }

    mutating func learn(_ keyPath: AnyKeyPath, _ slot: Int) {
        slots[keyPath] = slot
        remember(keyPath, slot)
    }

    private mutating func remember(_ keyPath: AnyKeyPath, _ slot: Int) {
        if recent.count == Self.recentCount { recent.removeLast() }
        recent.insert((keyPath, slot), at: 0)
    }
}
