public import Cashier
public import Foundation

/// Where orders live. Every change is a compare-and-set inside one transaction that also appends
/// to the order's event log and, when the change is one a merchant hears about, to the webhook
/// outbox — so a crash leaves either all of it or none. SQLite today; PostgreSQL implements the
/// same protocol.
public protocol OrderStore: Sendable {
    /// Applies the named migrations not yet applied, in order. - Returns: their names.
    @discardableResult
    func migrate() async throws -> [String]

    /// - Throws: `StoreError.conflict` when the id or `outTradeNo` exists.
    func create(_ order: NewOrder) async throws -> StoredOrder
    func order(id: String) async throws -> StoredOrder?
    func order(outTradeNo: String) async throws -> StoredOrder?

    /// Orders newest first, optionally of one status, after the cursor `before` (an order id from
    /// the previous page).
    func orders(status: PaymentStatus?, before: String?, limit: Int) async throws -> [StoredOrder]

    /// Orders still `created`, `pending` or `failed` whose expiry is before `date`, oldest first.
    func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder]

    /// Moves an order by `event` if the state machine allows it from its current status.
    /// - Parameters:
    ///   - refunded: the new refunded total, for refund events.
    ///   - record: appended with the transition.
    ///   - duplicate: appended instead, in the same transaction, when nothing changes (so a
    ///     duplicate notification costs one commit, not two); `nil` to log nothing then.
    /// - Returns: `.unchanged` when the order already is where a success or refund leads (a
    ///   duplicate). - Throws: `StoreError.illegalTransition` (nothing changed), `.notFound`.
    func apply(_ event: PaymentEvent, to orderID: String, refunded: Money?, record: EventRecord, duplicate: EventRecord?, now: Date)
        async throws -> TransitionOutcome

    /// Appends to an order's log without changing it (a duplicate or refused notification).
    func append(_ record: EventRecord, to orderID: String, now: Date) async throws
    func events(orderID: String) async throws -> [OrderEvent]
    /// Every transition into one of `statuses` logged in `[from, until)`, oldest first (what
    /// reconciliation compares with a provider's bill for a day).
    func transitions(into statuses: Set<PaymentStatus>, from: Date, until: Date) async throws -> [OrderEvent]
    /// The newest events of these kinds across all orders, newest first (the dashboard's live view).
    func recentEvents(kinds: Set<String>, limit: Int) async throws -> [OrderEvent]

    func idempotency(key: String, requestSHA256: String) async throws -> IdempotencyLookup
    func saveIdempotentResponse(key: String, requestSHA256: String, status: Int, body: [UInt8]) async throws

    /// Undelivered messages due at `now`, oldest first (a look, nothing claimed).
    func dueOutbox(now: Date, limit: Int) async throws -> [OutboxMessage]
    /// Claims undelivered messages due at `now` for `lease` seconds: no other instance sharing
    /// the database gets them meanwhile; if this one dies, they come back when the lease ends.
    func claimOutbox(now: Date, limit: Int, lease: TimeInterval) async throws -> [OutboxMessage]
    /// Every webhook message of an order, delivered or not, oldest first.
    func outbox(orderID: String) async throws -> [OutboxMessage]
    func markDelivered(_ id: String, at: Date) async throws
    func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date) async throws

    /// Takes (or renews) the cluster-wide lease on `job` for `duration` when it is free, expired
    /// or already `holder`'s: how a job runs on one instance at a time, and moves to another
    /// when its holder dies. - Returns: whether `holder` holds it now.
    func acquireLease(_ job: String, holder: String, now: Date, duration: TimeInterval) async throws -> Bool
}

extension OrderStore {
    /// ``apply(_:to:refunded:record:duplicate:now:)`` logging nothing for a duplicate.
    @discardableResult
    public func apply(_ event: PaymentEvent, to orderID: String, refunded: Money?, record: EventRecord, now: Date) async throws
        -> TransitionOutcome
    {
        try await apply(event, to: orderID, refunded: refunded, record: record, duplicate: nil, now: now)
    }
}
