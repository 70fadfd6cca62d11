import ApplePay
import Cashier
import CashierStore

/// A provider that holds card payments for a later capture (Apple Pay through Stripe or Adyen):
/// capture all or part, void, and say whether it still holds an authorisation. WeChat Pay and
/// Alipay do not conform: their payments are captured as they are paid.
protocol Capturing: PaymentAdapter {
    /// Captures `amount` of the authorisation, idempotent by `key`.
    func capture(_ payment: StoredPayment, amount: Money, key: OperationKey) async throws -> ProviderOperation
    /// Releases the whole authorisation, idempotent by `key`.
    func void(_ payment: StoredPayment, key: OperationKey) async throws -> ProviderOperation
    /// Asked after a refused capture: whether the processor no longer holds the authorisation
    /// (it lapsed, or was cancelled there); `nil` while it does, or cannot say.
    func authorizationEnded(_ payment: StoredPayment) async throws -> ApplePay.AuthorizationEnd?
    /// The merchant reference (Cashier's `out_trade_no`) of the processor's payment `reference`,
    /// for a word that names only the processor's payment (Stripe's refunds and disputes name the
    /// PaymentIntent).
    func merchantReference(ofPayment reference: String) async throws -> String?
}

/// What a processor answered to a capture, a void or a refund.
enum ProviderOperation: Sendable, Equatable {
    /// Done, under the processor's reference for it.
    case succeeded(reference: String)
    /// Accepted; its outcome follows (Adyen's `received`).
    case pending(reference: String)
    /// Refused, in the processor's words.
    case refused(String)

    init(_ operation: ApplePay.ProcessorOperation) {
        switch operation {
        case .succeeded(let id): self = .succeeded(reference: id)
        case .pending(let id): self = .pending(reference: id)
        case .refused(let reason): self = .refused(reason)
        }
    }
}

/// The idempotency key of a processor call: `cashier_{pay_…}_{operation}` for a payment's,
/// `cashier_{out_refund_no}_{operation}` for a refund record's (a refund, or money released).
/// The same on every retry, and byte for byte what earlier releases sent, so a retry across an
/// upgrade is still the same call to the processor.
struct OperationKey: Sendable, Equatable {
    let value: String

    /// A call about a payment (`authorize`, `capture`, `void`).
    static func payment(_ payment: StoredPayment, _ operation: String) -> OperationKey {
        OperationKey(value: "cashier_\(payment.id)_\(operation)")
    }

    /// A call for a refund record (`refund`, or `capture`/`void` to release held money).
    static func refund(_ refund: StoredRefund, _ operation: String) -> OperationKey {
        OperationKey(value: "cashier_\(refund.outRefundNo)_\(operation)")
    }

    /// The record in a key made for `operation`: a payment's id (`pay_…`) or a refund's number
    /// (what Adyen's webhooks name as the modification's `merchantReference`).
    static func recordNumber(in key: String, _ operation: String) -> String? {
        let (prefix, suffix) = ("cashier_", "_" + operation)
        guard key.hasPrefix(prefix), key.hasSuffix(suffix), key.count > prefix.count + suffix.count else { return nil }
        return String(key.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
