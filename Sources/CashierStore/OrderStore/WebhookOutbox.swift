public import Foundation

/// The webhook outbox: messages queued in the transaction that made the change they report,
/// then claimed, sent, retried and resent. Part of ``OrderStore``.
public protocol WebhookOutbox: Sendable {
    /// Undelivered messages due at `now` in the order they were written (a look, nothing claimed).
    /// An order's messages are written in the order its changes commit, so they come out in
    /// that order — `order.paid` before the `order.refund_required` of a payment that arrived
    /// after it — even when the later change's caller read the clock first. None comes out while
    /// an earlier message of its order is claimed or waiting for a retry; one parked (tried
    /// too often) holds nothing back.
    func dueOutbox(now: Date, limit: Int) async throws -> [OutboxMessage]
    /// Claims undelivered messages due at `now` for `lease` seconds: no other instance sharing
    /// the database gets them meanwhile; if this one dies, they come back when the lease ends.
    /// In the order they were written, as ``dueOutbox(now:limit:)``: an order's messages leave
    /// one sender at a time, in order, however many instances claim at once.
    func claimOutbox(now: Date, limit: Int, lease: TimeInterval) async throws -> [OutboxMessage]
    /// Gives back messages claimed by ``claimOutbox(now:limit:lease:)`` and not sent (the sender
    /// is stopping): due again at `now`, their attempts as they were. Only those still under that
    /// claim — due at `claimedUntil`, the claim's `now + lease` — change: one whose lease ran out
    /// and that another instance claimed since stays that instance's.
    func releaseOutbox(_ ids: [String], claimedUntil: Date, now: Date) async throws
    /// Every webhook message of an order, delivered or not, in the order they were written.
    func outbox(orderID: String) async throws -> [OutboxMessage]
    func markDelivered(_ id: String, at: Date) async throws
    /// Records a failed attempt (with why) and when to try again.
    func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date, error: String?) async throws
    /// Deliveries matching `query`, newest first.
    /// - Throws: `StoreError.notFound` when `query.after` names no delivery.
    func webhooks(matching query: WebhookQuery) async throws -> [OutboxMessage]
    /// Sends a message again as soon as the webhook job runs (same event id; it is signed anew
    /// when sent), whether or not it was delivered. - Returns: whether it exists.
    func resendWebhook(_ id: String, now: Date) async throws -> OutboxMessage?
    /// Sends again every message tried and not delivered that was queued in `[from, until)`.
    /// - Returns: the messages queued for sending.
    func resendFailedWebhooks(from: Date, until: Date, now: Date) async throws -> [OutboxMessage]
}

extension WebhookOutbox {
    /// ``reschedule(_:attempts:nextAttemptAt:error:)`` without a reason.
    public func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date) async throws {
        try await reschedule(id, attempts: attempts, nextAttemptAt: nextAttemptAt, error: nil)
    }
}
