/// A bill line in 16 bytes: what the reconciler keeps to count a line found on two bills once,
/// instead of the line itself — and, the same way, each payment the bills showed (its wallet and
/// number), to find the payments here they lack: two million lines kept in 16 bytes each.
///
/// Two 64-bit SipHash values of every field (`Hasher`, keyed at random for each process, with two
/// different prefixes): two different lines collide with odds near 2⁻¹²⁸, far below one in a
/// million million for a bill of millions of lines, and a bill's author cannot aim at a collision
/// without the process's key.
struct BillLineDigest: Hashable {
    private let first: Int
    private let second: Int

    init(_ value: some Hashable) {
        var hasher = Hasher()
        hasher.combine(1)
        hasher.combine(value)
        first = hasher.finalize()
        hasher = Hasher()
        hasher.combine(2)
        hasher.combine(value)
        second = hasher.finalize()
    }
}
