public import Cashier
public import Foundation

/// Recurring payments: agreements (reserved under their `external_no`, moved by the provider's
/// word by compare-and-set, never out of a final status), subscriptions, and one invoice per
/// subscription and period — opened once however many instances find it due, each attempt
/// claimed once. Each move queues its webhook in the same transaction. Part of ``OrderStore``.
public protocol RecurringRecords: Sendable {
    /// Reserves `agreement` under its `external_no`, or finds the one reserved under it already.
    func reserveAgreement(_ agreement: NewAgreement, now: Date) async throws -> (agreement: StoredAgreement, reserved: Bool)
    /// Records what the provider says of agreement `id`, unless it has ended already. An agreement
    /// that ends cancels its subscriptions and voids their open invoices, in the same transaction.
    /// - Throws: `StoreError.notFound`.
    func moveAgreement(_ id: String, to progress: AgreementProgress, now: Date) async throws -> AgreementMoved
    func agreement(id: String) async throws -> StoredAgreement?
    func agreement(provider: String, externalNo: String) async throws -> StoredAgreement?
    /// Agreements of `merchant` (every one when `nil`), newest first.
    func agreements(merchant: String?, limit: Int, offset: Int) async throws -> [StoredAgreement]
    /// Agreements still pending, last changed before `before`, oldest first: what the job asks about.
    func pendingAgreements(before: Date, limit: Int) async throws -> [StoredAgreement]

    /// Creates a subscription under an agreement that has not ended.
    /// - Throws: `StoreError.notFound` (no agreement), `.conflict` (it has ended).
    func createSubscription(_ subscription: NewSubscription, now: Date) async throws -> StoredSubscription
    func subscription(id: String) async throws -> StoredSubscription?
    /// Subscriptions under `agreementID` (every one when `nil`) of `merchant` (every one when `nil`), newest first.
    func subscriptions(agreementID: String?, merchant: String?, limit: Int, offset: Int) async throws -> [StoredSubscription]
    /// Moves a subscription to `status` by the merchant's word: `paused` from `active` or
    /// `past_due`; `active` (resumed) from `paused`; `canceled` from anything but `canceled`
    /// (its open invoice is voided). - Returns: it after, and whether it changed.
    /// - Throws: `StoreError.notFound`, `.conflict` when the move is not allowed from where it is.
    func changeSubscription(_ id: String, to status: StoredSubscription.Status, reason: String?, now: Date) async throws
        -> (subscription: StoredSubscription, changed: Bool)

    /// Subscriptions whose next period is due at `now` (active, agreement active, no invoice open).
    func dueSubscriptions(now: Date, limit: Int) async throws -> [StoredSubscription]
    /// Opens the next period's invoice of subscription `id`, if it is still due, and creates its
    /// order (`order`) in the same transaction. `whileSigning`: the first period, charged as the
    /// payer signs (Apple Pay's first payment), while the agreement is still pending.
    /// - Returns: the invoice, or `nil` when it was not due (another instance opened it, or it was paused).
    func openInvoice(subscription id: String, order: NewOrder, whileSigning: Bool, now: Date) async throws -> StoredInvoice?
    /// Claims the invoice's next attempt: one caller wins per attempt number (`seen`); the next
    /// look is due at `lookAgainAt` unless the attempt's end sets it.
    func claimInvoiceAttempt(_ id: String, seen attempts: Int, lookAgainAt: Date, now: Date) async throws -> StoredInvoice?
    /// Puts the invoice's next look at `at` (an answer awaited) without claiming an attempt.
    func deferInvoice(_ id: String, until at: Date, now: Date) async throws
    /// Records how the invoice's attempt ended, once (an invoice that has ended stays as it is).
    /// - Returns: the invoice after, and whether it changed.
    func finishInvoice(_ id: String, as outcome: InvoiceOutcome, now: Date) async throws -> (invoice: StoredInvoice, changed: Bool)
    /// Open invoices whose next look is due at `now`, oldest first.
    func dueInvoices(now: Date, limit: Int) async throws -> [StoredInvoice]
    func invoice(id: String) async throws -> StoredInvoice?
    func invoice(orderID: String) async throws -> StoredInvoice?
    /// The subscription's invoices, newest first.
    func invoices(subscriptionID: String) async throws -> [StoredInvoice]
}
