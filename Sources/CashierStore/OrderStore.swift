public import Cashier
public import Foundation

/// Where orders, their payment attempts and their refunds live. Every change that moves money
/// is one transaction that locks the order first, checks and changes the records, derives the
/// order's status from them (`PaymentStatus.derived(settled:closed:attempts:everStarted:)`, applied only
/// when `PaymentStateMachine` allows it), appends to the order's event log and, when the
/// merchant hears about it, to the webhook outbox — so a crash leaves all of it or none, and
/// concurrent requests (on any number of instances sharing the database) move money once.
/// SQLite and PostgreSQL implement it with the same statements.
public protocol OrderStore: Sendable {
    /// Applies the named migrations not yet applied, in order. - Returns: their names.
    @discardableResult
    func migrate() async throws -> [String]

    /// Finishes the writes already queued and closes the store's connections, returning once they
    /// are closed; every later call fails as unavailable. ``SQLiteOrderStore`` needs it before its
    /// file is copied, moved or removed; ``PostgresOrderStore`` gives its sessions back to the
    /// server at once instead of when the store is dropped. A store of one's own that holds
    /// nothing to close need not implement it.
    func close() async

    // MARK: Orders

    /// - Throws: `StoreError.conflict` when the id or `outTradeNo` exists.
    func create(_ order: NewOrder, now: Date) async throws -> StoredOrder
    func order(id: String) async throws -> StoredOrder?
    func order(outTradeNo: String) async throws -> StoredOrder?
    /// Each of these orders' version (one read for many: what order streams compare to learn
    /// which orders changed); ids not found are left out.
    func versions(ofOrders ids: [String]) async throws -> [String: Int64]

    /// Orders newest first, optionally of one status and of one sub-merchant (`nil`: every
    /// merchant's), after the cursor `before` (an order id from the previous page).
    /// - Throws: `StoreError.notFound` when `before` names no order (of `merchant`).
    func orders(status: PaymentStatus?, merchant: String?, before: String?, limit: Int) async throws -> [StoredOrder]

    /// Orders still `created`, `pending` or `failed` whose expiry is before `date`, oldest first.
    func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder]

    /// Closes an unpaid order and its open attempts (already closed at their providers).
    /// - Returns: `.unchanged` when it was closed already.
    /// - Throws: `StoreError.illegalTransition` when a payment has paid it, `.inProgress` while an
    ///   authorisation is in flight, `.notFound`.
    func close(orderID: String, record: EventRecord, now: Date) async throws -> TransitionOutcome
    /// Changes an unpaid order's lines and total (a shipping method or coupon chosen on the
    /// payment sheet), by compare-and-set on `version`.
    /// - Returns: the order afterwards; `nil` when its version moved (ask again with the new one).
    /// - Throws: `StoreError.illegalTransition` when the order is paid, closed or refunded, has
    ///   an attempt open at a wallet that would still take the old amount, or has been repriced
    ///   ``OrderStoreLimits/sheetChangesPerOrder`` times; `.inProgress` while an authorisation is
    ///   in flight; `.notFound`.
    func reprice(
        orderID: String, version: Int64, itemsJSON: String, total: Money, sheetJSON: String, record: EventRecord, now: Date
    ) async throws -> StoredOrder?

    // MARK: Payments

    /// Reserves a payment attempt on a payable order: an open attempt of the same kind is
    /// reused, otherwise a new one gets the order's trade number (or, when the wallet has seen
    /// that number, a derived one). The order moves to `pending`. An order takes at most
    /// ``OrderStoreLimits/attemptsPerOrder`` attempts, so that whoever holds its client secret
    /// cannot make the server place and close payments at the providers without end.
    /// - Throws: `StoreError.illegalTransition` when the order is paid or closed, or has had
    ///   as many attempts as it takes; `.inProgress` while another attempt's authorisation is in
    ///   flight, `.conflict` when the wallet token was used before, `.notFound`.
    func beginPayment(_ payment: NewPayment, now: Date) async throws -> PaymentStart

    /// Records what the provider said about an attempt, once: a success settles the order or,
    /// when another payment settled it, is recorded as a duplicate to refund.
    /// - Parameters:
    ///   - outcome: what the provider said.
    ///   - paymentID: the attempt (`pay_…`).
    ///   - record: appended with the change.
    ///   - duplicate: appended instead when nothing changes (a repeated notification); `nil` to log
    ///     nothing then. One with a body hash is left out once the order's log is full (``ReportLineLimit``).
    ///   - now: when it is recorded.
    /// - Throws: `StoreError.illegalTransition` when a success's amount is not the attempt's, `.notFound`.
    func recordPayment(_ outcome: PaymentOutcome, of paymentID: String, record: EventRecord, duplicate: EventRecord?, now: Date)
        async throws -> PaymentRecorded

    /// ``recordPayment(_:of:record:duplicate:now:)`` for the attempt a provider names by its
    /// trade number, found inside the same transaction — a notification's one trip to the store.
    /// `accept` sees the attempt before anything is written and refuses it by throwing (the
    /// error is rethrown and nothing is written).
    /// - Returns: `nil` when no attempt has `outTradeNo` at `wallet` (nothing is written).
    func recordPayment(
        _ outcome: PaymentOutcome, wallet: PaymentMethod.Wallet, outTradeNo: String,
        accept: @escaping @Sendable (StoredPayment) throws -> Void, record: EventRecord, duplicate: EventRecord?, now: Date
    ) async throws -> PaymentRecorded?

    /// The same, for a caller that waits on no task: `done` is called once, when the transaction
    /// is committed (or has failed), from the thread that tells the writer's callers — the SQLite
    /// writer's finisher, so a notification's answer follows its commit without a hop through
    /// Swift's cooperative threads.
    func recordPayment(
        _ outcome: PaymentOutcome, wallet: PaymentMethod.Wallet, outTradeNo: String,
        accept: @escaping @Sendable (StoredPayment) throws -> Void, record: EventRecord, duplicate: EventRecord?, now: Date,
        then done: @escaping @Sendable (Result<PaymentRecorded?, any Error>) -> Void)

    func payment(id: String) async throws -> StoredPayment?
    /// Keeps the contacts the payer chose with a payment.
    func setContacts(_ contacts: PaymentContacts, of paymentID: String, now: Date) async throws
    /// Moves a card payment's capture state once, by compare-and-set: from `from` (`nil`: none
    /// yet) to `to`, appending `record` to its order's log when it moves.
    /// - Returns: the payment afterwards; `nil` when it was not in `from` (another move came first).
    func moveCapture(of paymentID: String, from: CaptureState?, to: CaptureState, record: EventRecord?, now: Date) async throws
        -> StoredPayment?
    /// The attempt with this trade number at `wallet`.
    func payment(wallet: PaymentMethod.Wallet, outTradeNo: String) async throws -> StoredPayment?
    /// The attempts of these orders, oldest first.
    func payments(orderIDs: [String]) async throws -> [StoredPayment]
    /// Attempts still `pending` that started before `date`, oldest first (the query fallback).
    func pendingPayments(startedBefore date: Date, limit: Int) async throws -> [StoredPayment]
    /// Attempts that succeeded in `[from, until)` (reconciliation).
    func succeededPayments(from: Date, until: Date) async throws -> [StoredPayment]
    /// Succeeded attempts flagged `refund_required` with nothing reserved for them yet (the
    /// automatic refund of duplicates).
    func unrefundedDuplicates(limit: Int) async throws -> [StoredPayment]

    // MARK: Refunds

    /// Checks and reserves a refund against its payment in one transaction (the order's row
    /// locked): the amount never exceeds what the payment took less what other refunds hold,
    /// however many arrive at once. A refund number seen before returns that refund instead.
    /// - Throws: `StoreError.limitExceeded` (too much, or nothing left), `.illegalTransition`
    ///   (nothing was paid), `.conflict` (the number names another refund), `.notFound`.
    func reserveRefund(_ refund: NewRefund, now: Date) async throws -> RefundReservation

    /// Records the provider's answer: a success counts the refund against the order; a failure
    /// releases the reservation (or takes back a success) and sends `order.refund_failed`.
    func finishRefund(_ refundID: String, outcome: RefundOutcome, now: Date) async throws -> RefundFinished

    func refund(id: String) async throws -> StoredRefund?
    func refund(outRefundNo: String) async throws -> StoredRefund?
    /// The refunds of these orders, oldest first.
    func refunds(orderIDs: [String]) async throws -> [StoredRefund]
    /// Refunds still `pending` created before `date` (asked about by the refund job).
    func pendingRefunds(createdBefore date: Date, limit: Int) async throws -> [StoredRefund]
    /// Refunds that succeeded in `[from, until)` (reconciliation).
    func succeededRefunds(from: Date, until: Date) async throws -> [StoredRefund]
    /// Refunds the provider accepted before `date` but has not confirmed (the refund job asks).
    func unconfirmedRefunds(acceptedBefore date: Date, limit: Int) async throws -> [StoredRefund]

    // MARK: Events

    /// Appends to an order's log without changing it (a refused notification, a refund result).
    /// A report from outside (a record with a body hash) is not logged once the order's log holds
    /// as many of those as the store keeps (``ReportLineLimit``).
    func append(_ record: EventRecord, to orderID: String, now: Date) async throws
    /// Lines of reports from outside that changed nothing and were not logged, their order's log
    /// being full (``ReportLineLimit``), since the store was opened.
    var unloggedReportLines: Int { get }
    /// Appends `record` (if any) to the order's log and queues webhook `type` about `dispute` with
    /// event id `eventID` — once per id, however often it is asked, at however many instances (a
    /// copy only adds its log line, within the order's ``ReportLineLimit`` when it has a body
    /// hash). - Returns: whether this call queued it.
    @discardableResult
    func announce(_ type: String, dispute: DisputeJSON, eventID: String, record: EventRecord?, to orderID: String, now: Date)
        async throws -> Bool
    func events(orderID: String) async throws -> [OrderEvent]
    /// Every transition into one of `statuses` logged in `[from, until)`, oldest first.
    func transitions(into statuses: Set<PaymentStatus>, from: Date, until: Date) async throws -> [OrderEvent]
    /// The newest events of these kinds across all orders, newest first (the dashboard's live view).
    func recentEvents(kinds: Set<EventKind>, limit: Int) async throws -> [OrderEvent]

    // MARK: Idempotency

    /// Takes `key` for `holder` until `now + lease`, unless a request with it finished (replay),
    /// used another body (conflict) or still holds it (in progress). A holder's lease that ran
    /// out (it crashed) may be taken over.
    func reserveIdempotencyKey(_ key: String, requestSHA256: String, holder: String, now: Date, lease: TimeInterval) async throws
        -> IdempotencyReservation
    /// Keeps `holder`'s key for longer (a slow request).
    func renewIdempotencyKey(_ key: String, holder: String, until: Date) async throws
    /// Stores the answer to replay; the key is no longer in progress.
    func completeIdempotencyKey(_ key: String, holder: String, status: Int, body: [UInt8], now: Date) async throws
    /// Gives the key up (the request failed and may be retried).
    func releaseIdempotencyKey(_ key: String, holder: String) async throws

    // MARK: Outbox

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

    // MARK: Dashboard and exports

    /// Money, orders and attempts over `[from, until)`, with succeeded payments in slices of `bucket` seconds.
    func overview(from: Date, until: Date, bucket: TimeInterval) async throws -> LedgerOverview
    /// Orders matching `query` (by creation time, status, id or out_trade_no).
    func orders(matching query: RecordQuery) async throws -> [StoredOrder]
    /// Payments matching `query`.
    func payments(matching query: RecordQuery) async throws -> [StoredPayment]
    /// Refunds matching `query` (provider and method are their payment's).
    func refunds(matching query: RecordQuery) async throws -> [StoredRefund]

    /// Takes (or renews) the cluster-wide lease on `job` for `duration` when it is free, expired
    /// or already `holder`'s: how a job runs on one instance at a time, and moves to another
    /// when its holder dies. - Returns: whether `holder` holds it now.
    func acquireLease(_ job: String, holder: String, now: Date, duration: TimeInterval) async throws -> Bool
    /// Gives up `holder`'s lease on `job` (nothing when another holds it now).
    func releaseLease(_ job: String, holder: String) async throws

    // MARK: Access: dashboard sessions, sign-in failures, API keys

    /// Keeps a dashboard session, by the SHA-256 of its cookie value (never the value), so every
    /// instance sharing the database knows it; expired sessions are dropped meanwhile.
    func createDashboardSession(_ session: DashboardSessionRecord, now: Date) async throws
    /// The session whose cookie hashes to `idHash`, if it has not expired.
    func dashboardSession(idHash: String, now: Date) async throws -> DashboardSessionRecord?
    func endDashboardSession(idHash: String) async throws
    /// Records a failed sign-in from `source`. - Returns: how many failed from it since `since`.
    func recordSignInFailure(source: String, now: Date, since: Date) async throws -> Int
    /// How many sign-ins failed from `source` since `since`.
    func signInFailures(source: String, since: Date) async throws -> Int

    /// Stores a new API key (its hash; the key itself is shown once and never kept).
    func createAPIKey(_ key: APIKeyRecord) async throws
    /// Every API key, newest first, revoked ones included.
    func apiKeys() async throws -> [APIKeyRecord]
    /// The unrevoked key whose SHA-256 is `hash`: read on every request, so a revocation is
    /// refused at once on every instance.
    func activeAPIKey(hash: String) async throws -> APIKeyRecord?
    /// Revokes key `id`. - Returns: the key, or `nil` when there is none. Revoking twice keeps the first time.
    func revokeAPIKey(id: String, now: Date) async throws -> APIKeyRecord?
    /// Notes that key `id` was used at `at`.
    func touchAPIKey(id: String, at: Date) async throws
}

extension OrderStore {
    public func close() async {}

    /// A store that logs every line leaves nothing out.
    public var unloggedReportLines: Int { 0 }

    /// ``create(_:now:)`` at the current time.
    public func create(_ order: NewOrder) async throws -> StoredOrder { try await create(order, now: Date()) }

    /// The attempts of one order, oldest first.
    public func payments(orderID: String) async throws -> [StoredPayment] { try await payments(orderIDs: [orderID]) }

    /// The refunds of one order, oldest first.
    public func refunds(orderID: String) async throws -> [StoredRefund] { try await refunds(orderIDs: [orderID]) }

    /// ``reschedule(_:attempts:nextAttemptAt:error:)`` without a reason.
    public func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date) async throws {
        try await reschedule(id, attempts: attempts, nextAttemptAt: nextAttemptAt, error: nil)
    }

    /// ``orders(status:merchant:before:limit:)`` of every merchant.
    public func orders(status: PaymentStatus?, before: String?, limit: Int) async throws -> [StoredOrder] {
        try await orders(status: status, merchant: nil, before: before, limit: limit)
    }

    /// ``recordPayment(_:of:record:duplicate:now:)`` logging nothing for a duplicate.
    @discardableResult
    public func recordPayment(_ outcome: PaymentOutcome, of paymentID: String, record: EventRecord, now: Date) async throws
        -> PaymentRecorded
    {
        try await recordPayment(outcome, of: paymentID, record: record, duplicate: nil, now: now)
    }
}
