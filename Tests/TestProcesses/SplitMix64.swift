/// SplitMix64: tiny, fast and the same on every platform, so a seed names one run. Shared by
/// the tests and the benchmarks (which generate their payloads with it).
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    public mutating func pick<T>(_ values: [T]) -> T {
        values[int(0...values.count - 1)]
    }

    /// `value`, or nil about a third of the time.
    public mutating func orNil<T>(_ value: T) -> T? {
        chance(0.3) ? nil : value
    }
}
