import Cashier
import CashierStore
import Foundation

/// One provider and API generation, as the merchant server uses it: who an attempt is for, the
/// wallet's parameters, its confirmation by query, closing. What else a provider can do is a
/// capability of its own — ``Refunding``, ``Capturing``, ``Reconciling``, ``NotificationSource``,
/// ``KeyMaintaining`` — which the server asks for by type (``PaymentAdapters/refunding(for:)``…),
/// never by comparing a provider's name. The server holds one per configured provider
/// (``PaymentAdapters``). Nothing here knows HTTP.
protocol PaymentAdapter: Sendable {
    var provider: PaymentProvider { get }
    /// The methods this provider places.
    var methods: Set<PaymentMethod> { get }
    /// The currencies it takes (CNY for WeChat Pay and Alipay's domestic APIs unless the
    /// merchant configures cross-border ones); `nil` for any (Apple Pay's processor decides).
    var currencies: Set<Currency>? { get }

    /// Who the attempt is for, resolved before it is reserved: the appid, the merchant, the payer
    /// (a mini program's `js_code` is exchanged for the openid here).
    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt

    /// Places the reserved attempt with the provider (idempotent by its trade number) and signs
    /// what the wallet needs. - Returns: what the app hands its wallet.
    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters

    /// Asks where the attempt stands ("query when in doubt").
    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState

    /// Closes an unpaid attempt so it can no longer be paid.
    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult
}

/// A provider that refunds (every one Cashier has today).
protocol Refunding: PaymentAdapter {
    /// Whether the answer to a refund call is final (a card processor's), rather than an
    /// acceptance the provider confirms later (WeChat Pay's, Alipay's).
    var refundAnswerIsFinal: Bool { get }

    /// Asks for a refund, idempotent by its `out_refund_no`.
    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState

    /// Asks where a refund stands.
    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState

    /// What a refund made at the provider without Cashier (in its console) took, asked of the
    /// provider by the refund's number, for a notification that does not say (Alipay's names only
    /// the total refunded so far). `nil` when the provider has no completed refund under the
    /// number, or cannot be asked (the default).
    func consoleRefundAmount(_ outRefundNo: String, of payment: StoredPayment) async throws -> Money?
}

extension Refunding {
    var refundAnswerIsFinal: Bool { false }
    func consoleRefundAmount(_ outRefundNo: String, of payment: StoredPayment) async throws -> Money? { nil }
}

/// A provider whose bills reconciliation reads.
protocol Reconciling: PaymentAdapter {
    /// The provider's bill for a day (`yyyy-MM-dd`, Beijing time), read a line at a time; `nil`
    /// when it keeps none.
    func bill(date: String) async throws -> BillLines?

    /// The day's movements of the merchant's balance at the provider (its fund-flow bill); `nil`
    /// when it keeps none.
    func fundFlow(date: String) async throws -> [FundFlowMovement]?

    /// Whose bills ``bill(date:)`` and ``fundFlow(date:)`` read: adapters naming the same
    /// account (a service provider's sub-merchants, whose bills and balance are the provider's)
    /// are read once by reconciliation.
    var billAccount: (trades: String, funds: String) { get }
}

extension Reconciling {
    func fundFlow(date: String) async throws -> [FundFlowMovement]? { nil }
    var billAccount: (trades: String, funds: String) { (provider.rawValue, provider.rawValue) }
}

/// A provider whose keys need looking after while the server runs.
protocol KeyMaintaining: Sendable {
    /// Keeps the keys the provider's messages are verified with current (WeChat Pay v3's
    /// platform certificates: fetched when the server starts and refreshed as they age).
    func maintainKeys() async
}

/// One line of a provider's fund-flow bill.
struct FundFlowMovement: Hashable, Sendable {
    /// The provider's number for the movement (WeChat Pay's 资金流水单号, Alipay's 账务流水号): the
    /// same movement on two bills (WeChat Pay's v2 and v3 describe one account) counts once.
    let id: String
    /// Positive for money in, negative for money out.
    let amount: Money
    /// A fee charged (out) or returned (in).
    let isFee: Bool
}

/// Who a new attempt is for.
struct PreparedAttempt: Sendable {
    var appID: String?
    var merchantID: String?
    var payer: String?
}

/// What a provider says of an attempt when asked.
enum ProviderPaymentState: Sendable, Equatable {
    /// Paid: the amount and the provider's transaction id, already checked against the merchant.
    case paid(amount: Money, transactionID: String?)
    /// Not paid (yet): the payer may still pay.
    case unpaid
    /// Closed, revoked or failed at the provider: it will not be paid.
    case failed(String)
    /// The provider has no such trade (an Alipay app payment the payer never opened).
    case notFound
    /// The provider keeps no trade to ask about (Apple Pay: the processor decided at once).
    case unknown
}

/// What closing an attempt at its provider found.
enum ProviderCloseResult: Sendable, Equatable {
    /// Closed (or never existed there): it can no longer be paid.
    case closed
    /// It had been paid before the close arrived: record it.
    case paid(amount: Money, transactionID: String?)
}

/// What a provider says of a refund.
enum ProviderRefundState: Sendable, Equatable {
    /// Accepted or done.
    case succeeded(providerRefundID: String?)
    /// Still being processed.
    case processing
    /// Refused, closed or abnormal (the provider's words).
    case failed(String)
    /// The provider has no such refund.
    case notFound
}

/// One line of a provider's bill.
struct BillEntry: Hashable, Sendable {
    enum Kind: Hashable, Sendable { case payment, refund }
    let wallet: PaymentMethod.Wallet
    let outTradeNo: String
    let kind: Kind
    let amount: Money
    /// The provider's own number for the line (transaction, refund request), for deduplication.
    let reference: String
    /// The provider's fee on the line: charged on a payment, negative when returned with a refund.
    var fee: Money? = nil
}

/// A verified payment notification.
struct PaymentReport: Sendable {
    let outTradeNo: String
    /// `paid`, `unpaid` or `failed`, with the amount it reports when paid.
    let state: ProviderPaymentState
    /// The merchant the signed content names, in the terms a payment records it
    /// (``CashierStore/StoredPayment/merchantID``: WeChat Pay's `sub_mch_id`, else `mch_id`; an
    /// Alipay ISV's merchant's app id, else the seller); `nil` when the message names none. A
    /// payment of another merchant is never moved by it, whatever path it came to.
    let merchantID: String?
    /// What the event log keeps of it.
    let fields: [String: String]
    /// The provider module's check of the notified amount (and currency) against the payment's.
    let check: @Sendable (Money) throws -> Void
}

/// A verified refund notification.
struct RefundReport: Sendable {
    let outTradeNo: String
    let outRefundNo: String
    let state: ProviderRefundState
    /// The merchant whose refund it is, as ``PaymentReport/merchantID``: what the signed content
    /// names, or — where it names none (WeChat Pay v2's refund result, whose merchant fields sit
    /// unsigned outside its encrypted `req_info`) — the merchant of the path it came to. Never an
    /// unsigned field.
    let merchantID: String?
    let fields: [String: String]
    /// The refunded amount in minor units, when the notification gives it without a currency
    /// (the log shows it in the payment's).
    var amountMinor: Int64? = nil
}

/// What became of a notification.
/// Its raw value is the `outcome` label of `cashier_notifications_total` (string interpolation
/// of an enum goes through Swift's reflection: a percent of every notification).
enum NotificationOutcome: String, Sendable {
    /// Recorded (a change, a duplicate or a non-payment status): tell the provider it arrived.
    case acknowledged
    /// Refused and logged (another amount, an unknown order): the provider should not count it.
    case refused
    /// Not recorded (storage failed): the provider must retry.
    case retry
    /// It did not verify.
    case unverified
}
