import Cashier
import CashierStore

/// A provider that shares a paid order with receivers (profit sharing: WeChat Pay's
/// `/v3/profitsharing/*`, Alipay's royalty relations and `alipay.trade.order.settle`): receivers
/// added once, split requests sent under their own number (again, with the same number, when an
/// answer was lost: the provider makes one request of it), returns, and the order's end.
protocol Splitting: PaymentAdapter {
    /// The merchant the provider knows (`mchid`, Alipay's app): a report naming another is not this adapter's.
    var splitMerchantID: String { get }
    /// Adds `receiver` at the provider (idempotent: adding one twice is fine). `name` is their real
    /// name (a company's full name for `MERCHANT_ID`), sent encrypted where the provider asks for it.
    /// - Throws: `PaymentError.providerRejected` when the provider refused.
    func addReceiver(_ receiver: StoredReceiver, name: String?) async throws
    /// Deletes `receiver` at the provider.
    func removeReceiver(_ receiver: StoredReceiver) async throws
    /// Sends `split` (shares of its payment `split.transactionID`; with `finish`, ending the order's
    /// sharing; with `finish` and no shares, only that). - Returns: what the provider says of it now.
    /// - Throws: `PaymentError.providerRejected` when it refused; any other error when its answer is unknown.
    func sendSplit(_ split: StoredSplit) async throws -> SplitProgress
    /// Where `split` stands at the provider; `nil` when the provider has no such request.
    func splitProgress(_ split: StoredSplit) async throws -> SplitProgress?
    /// Takes `splitReturn.amount` back from one receiver of `split`. - Returns: what the provider says of it now.
    /// - Throws: `PaymentError.providerRejected` when refused, `.unsupported` when the provider has no returns.
    func sendSplitReturn(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress
    /// Where a return stands; `nil` when the provider has no such return.
    func splitReturnProgress(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress?
    /// What the provider still holds unshared of `payment` (WeChat's `unsplit_amount`, Alipay's `unsettled_amount`).
    func unsplitAmount(of payment: StoredPayment) async throws -> Money
    /// Whether the provider takes shares back on their own (WeChat Pay's 分账回退); `false` where
    /// shares come back only with a refund (Alipay's `refund_royalty_parameters`).
    var takesReturns: Bool { get }
    /// The provider's profit-sharing bill for a day (`yyyy-MM-dd`, Beijing time): each share and
    /// return it moved; `nil` when it keeps none (the default).
    func splitBill(date: String) async throws -> [SplitBillLine]?
    /// A verified split notification read as reports (Alipay's `alipay.trade.order.settle.notify`);
    /// `[]` for a provider that sends none to the paying merchant (WeChat Pay notifies receivers only).
    func splitEvents(_ message: InboundMessage) async throws -> [ProviderEvent]
}

extension Splitting {
    var takesReturns: Bool { true }
    func splitBill(date: String) async throws -> [SplitBillLine]? { nil }
    func splitEvents(_ message: InboundMessage) async throws -> [ProviderEvent] { [] }
}

/// A split notification, verified: which request, at which merchant, and where it stands.
struct SplitReport: Sendable, Equatable {
    let provider: PaymentProvider
    let merchantID: String
    let outOrderNo: String
    let progress: SplitProgress
    let notificationID: String
}

/// One line of a provider's profit-sharing bill: a share it moved to a receiver, or a return.
struct SplitBillLine: Sendable, Equatable {
    enum Kind: String, Sendable { case share, `return` }
    let kind: Kind
    /// The merchant's number for the request (`out_order_no`).
    let outOrderNo: String
    /// The return's number (`out_return_no`), for a return.
    let outReturnNo: String?
    /// The receiver's account (a return: whom it came back from).
    let account: String
    let amountMinor: Int64
    /// The provider's state of the line (`SUCCESS`, `CLOSED`, …).
    let state: String
}
