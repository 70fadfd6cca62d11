import Cashier
import CashierStore

/// A provider that moves money out of the merchant's account to a person (WeChat Pay's 商家转账):
/// send a transfer reserved under its number (again, with the same number, when an answer was
/// lost: the provider makes one bill of it), ask where it stands, cancel it.
protocol Transferring: PaymentAdapter {
    /// The merchant the provider knows (`mchid`): a notification naming another is not this adapter's.
    var transferMerchantID: String { get }
    /// The app payees' openids belong to.
    var transferAppID: String { get }
    /// Sends `transfer`. - Returns: what the provider says of it now.
    /// - Throws: `PaymentError.providerRejected` when it refused; any other error when its answer is unknown.
    func sendTransfer(_ transfer: StoredTransfer, notifyURL: String, reports: [(type: String, content: String)], perception: String?)
        async throws -> TransferProgress
    /// Where `transfer` stands at the provider; `nil` when the provider has no such bill.
    func transferProgress(_ transfer: StoredTransfer) async throws -> TransferProgress?
    /// Cancels `transfer` before its payee confirms. - Returns: what the provider says of it now.
    func cancelTransfer(_ transfer: StoredTransfer) async throws -> TransferProgress
}

/// A transfer notification, verified: which bill, at which merchant, for how much, and where it stands.
struct TransferReport: Sendable, Equatable {
    let provider: PaymentProvider
    let merchantID: String
    let outBillNo: String
    let amountMinor: Int64
    let progress: TransferProgress
    let notificationID: String
}
