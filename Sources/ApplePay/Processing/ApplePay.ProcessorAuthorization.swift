public import Cashier
public import Foundation

extension ApplePay {
    /// One authorisation as a processor needs it: the amount, the merchant's reference, the token
    /// (encrypted, and decrypted when the merchant holds the key) and what the device said of the card.
    public struct ProcessorAuthorization: Sendable {
        public var amount: Money
        /// The merchant's reference for the payment (Cashier's payment id).
        public var reference: String
        /// Sent with every request of this authorisation; derived from the payment record.
        public var idempotencyKey: String
        /// `true`: capture at once; `false`: hold the money until ``PaymentProcessor/capture(_:amount:idempotencyKey:)``.
        public var capture: Bool
        /// The encrypted token as the device produced it.
        public var token: PaymentToken
        /// The decrypted payment, for a processor whose ``PaymentProcessor/tokenForm`` is `.decrypted`.
        public var decrypted: DecryptedPayment?
        /// The billing postal code the payer chose, for the processor's address check.
        public var billingPostalCode: String?

        public init(
            amount: Money, reference: String, idempotencyKey: String, capture: Bool = true, token: PaymentToken,
            decrypted: DecryptedPayment? = nil, billingPostalCode: String? = nil
        ) {
            self.amount = amount
            self.reference = reference
            self.idempotencyKey = idempotencyKey
            self.capture = capture
            self.token = token
            self.decrypted = decrypted
            self.billingPostalCode = billingPostalCode
        }
    }

    /// What a processor said of a capture, void or refund.
    public enum ProcessorOperation: Sendable, Equatable {
        /// Done, or accepted for processing (Adyen's `received`); `reference` is the processor's id for it.
        case succeeded(reference: String)
        /// Accepted but not final (a Stripe refund `pending`): ask again later.
        case pending(reference: String)
        /// Refused, with the processor's words.
        case refused(String)
    }

    /// A payment as the processor records it, for reconciliation.
    public struct ProcessorPayment: Sendable, Equatable {
        /// Where it stands, whatever the processor calls it.
        public enum State: Sendable, Equatable {
            /// Accepted, not decided yet (Stripe's `processing`): no money yet, and it may still fail.
            case pending
            /// Authorised and held, not captured.
            case authorized
            /// Captured (all, or part with the rest released).
            case captured
            /// Released before capture (cancelled, expired).
            case voided
            /// Never authorised (refused, an error, or not yet confirmed).
            case refused
        }

        /// The processor's id (`pi_…`, a PSP reference).
        public var reference: String
        /// The merchant's reference sent with it (Cashier's payment id).
        public var merchantReference: String?
        public var authorized: Money
        public var captured: Money
        /// What went back of the captured amount: refunds, and what disputes took and kept.
        public var refunded: Money
        public var state: State
        /// The processor's own status word (`succeeded`, `requires_capture`, `canceled`, …).
        public var status: String
        public var createdAt: Date

        public init(
            reference: String, merchantReference: String?, authorized: Money, captured: Money, refunded: Money, state: State,
            status: String, createdAt: Date
        ) {
            self.reference = reference
            self.merchantReference = merchantReference
            self.authorized = authorized
            self.captured = captured
            self.refunded = refunded
            self.state = state
            self.status = status
            self.createdAt = createdAt
        }
    }
}
