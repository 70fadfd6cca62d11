public import Cashier
public import Foundation

/// Payment attempts: reserved before any provider is called (``beginPayment(_:now:)``), and what
/// the provider said recorded once, settling the order in the same transaction. Part of ``OrderStore``.
public protocol PaymentLedger: Sendable {
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
    /// The attempts placed at `wallet` under any of `outTradeNos`, by number: reconciliation reads
    /// a bill's lines many at a time, not one read each.
    func payments(wallet: PaymentMethod.Wallet, outTradeNos: [String]) async throws -> [String: StoredPayment]
    /// The attempts of these orders, oldest first.
    func payments(orderIDs: [String]) async throws -> [StoredPayment]
    /// Attempts still `pending` that started before `date`, oldest first (the query fallback).
    func pendingPayments(startedBefore date: Date, limit: Int) async throws -> [StoredPayment]
    /// Attempts that succeeded in `[from, until)` (reconciliation).
    ///
    /// A page at a time: up to `limit`, in order of success (then id), after the payment `after`
    /// (the last of the page before; `nil` for the first), so a day of a million payments is
    /// never held at once.
    func succeededPayments(from: Date, until: Date, after: StoredPayment?, limit: Int) async throws -> [StoredPayment]
    /// Succeeded attempts flagged `refund_required` with nothing reserved for them yet (the
    /// automatic refund of duplicates).
    func unrefundedDuplicates(limit: Int) async throws -> [StoredPayment]
}

extension PaymentLedger {
    /// One read per number, for a store that has nothing faster.
    public func payments(wallet: PaymentMethod.Wallet, outTradeNos: [String]) async throws -> [String: StoredPayment] {
        var found: [String: StoredPayment] = [:]
        for number in outTradeNos {
            if let payment = try await payment(wallet: wallet, outTradeNo: number) { found[number] = payment }
        }
        return found
    }

    /// The attempts of one order, oldest first.
    public func payments(orderID: String) async throws -> [StoredPayment] { try await payments(orderIDs: [orderID]) }

    /// ``recordPayment(_:of:record:duplicate:now:)`` logging nothing for a duplicate.
    @discardableResult
    public func recordPayment(_ outcome: PaymentOutcome, of paymentID: String, record: EventRecord, now: Date) async throws
        -> PaymentRecorded
    {
        try await recordPayment(outcome, of: paymentID, record: record, duplicate: nil, now: now)
    }
}
