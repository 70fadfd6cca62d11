public import Foundation

/// Cluster-wide leases on background jobs, so each runs on one instance at a time. Part of ``OrderStore``.
public protocol JobLeases: Sendable {
    /// Takes (or renews) the cluster-wide lease on `job` for `duration` when it is free, expired
    /// or already `holder`'s: how a job runs on one instance at a time, and moves to another
    /// when its holder dies. - Returns: whether `holder` holds it now.
    func acquireLease(_ job: String, holder: String, now: Date, duration: TimeInterval) async throws -> Bool
    /// Gives up `holder`'s lease on `job` (nothing when another holds it now).
    func releaseLease(_ job: String, holder: String) async throws
}
