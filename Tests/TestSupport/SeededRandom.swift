import Foundation

/// A small deterministic generator (SplitMix64), so a randomised test can be run again exactly:
/// the test prints its seed, and `CASHIER_TEST_SEED=<seed>` replays it.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator seeded from `CASHIER_TEST_SEED`, or from the system when it is not set; the
    /// seed is printed with `name`, so a failure can be replayed.
    public static func forTest(_ name: String) -> (generator: SeededRandom, seed: UInt64) {
        let seed = ProcessInfo.processInfo.environment["CASHIER_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("\(name): seed \(seed) (replay with CASHIER_TEST_SEED=\(seed))")
        return (SeededRandom(seed: seed), seed)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
