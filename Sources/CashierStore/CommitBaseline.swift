/// What `cashier-bench server` divides by: durable single-row commits on the same disk (or
/// PostgreSQL server), one caller, one `INSERT` a transaction, no grouping — how many a second,
/// and how long one took (the median and the 99th percentile), measured in the same run.
public struct CommitBaseline: Sendable, Equatable {
    /// Commits per second.
    public var rate: Double
    /// The median commit's time, from `BEGIN` to the end of `COMMIT`, in milliseconds.
    public var p50Milliseconds: Double
    /// The 99th percentile of the same.
    public var p99Milliseconds: Double
    /// How many commits were made.
    public var commits: Int

    /// The mean of two measurements (before and after the part divided by them); their commits added.
    /// - Parameters:
    ///   - first: one measurement.
    ///   - second: the other.
    public static func mean(_ first: CommitBaseline, _ second: CommitBaseline) -> CommitBaseline {
        CommitBaseline(
            rate: (first.rate + second.rate) / 2, p50Milliseconds: (first.p50Milliseconds + second.p50Milliseconds) / 2,
            p99Milliseconds: (first.p99Milliseconds + second.p99Milliseconds) / 2, commits: first.commits + second.commits)
    }
}
