public import Cashier
public import Foundation

extension ApplePay {
    /// What a processor takes from the token.
    public enum TokenForm: String, Sendable {
        /// Apple's encrypted `paymentData`: the processor holds the payment processing certificate's
        /// key and decrypts it (Stripe, Adyen). Cashier still verifies the signature chain, the
        /// signing time and the application data, which need no private key.
        case encrypted
        /// The decrypted network token and cryptogram: the merchant holds the processing key and
        /// Cashier decrypts (processors that accept network tokens, and the in-process sandbox).
        case decrypted
    }

    /// Where an Apple Pay payment is authorised, captured, voided and refunded: a card processor
    /// (Stripe, Adyen, a bank's gateway) behind one set of calls. Every call carries an idempotency
    /// key derived from Cashier's own records, so a retry after a lost answer never charges,
    /// captures or refunds twice. Implementations never log tokens, cryptograms or keys.
    ///
    /// Only ``authorize(_:)`` is required: the others default to refusing (a processor connected for
    /// authorisations only is refunded in its own dashboard).
    public protocol PaymentProcessor: Sendable {
        /// Whether ``ProcessorAuthorization/decrypted`` must be present.
        var tokenForm: TokenForm { get }

        /// Authorises (and, when ``ProcessorAuthorization/capture`` is set, captures) the amount.
        /// - Throws: `PaymentError.transport` when no answer arrived after retries (the outcome is
        ///   unknown: ask again with the same idempotency key, never with a new one).
        func authorize(_ authorization: ProcessorAuthorization) async throws -> ProcessorDecision

        /// Captures `amount` (at most what was authorised) of an authorisation made without capture.
        func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation

        /// Releases an authorisation that was not captured.
        func void(_ reference: String, idempotencyKey: String) async throws -> ProcessorOperation

        /// Returns `amount` of a captured payment to the card.
        func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation

        /// The processor's records of payments created in `[from, to)`, for reconciliation; `nil`
        /// when it offers no list through its API.
        func payments(from: Date, to: Date) async throws -> [ProcessorPayment]?

        /// The processor's record of its payment `reference` as it stands now: how an
        /// authorisation it accepted without deciding (``ProcessorDecision/pending(reference:)``)
        /// is found decided when its webhook is late or lost. `nil` when the processor has no such
        /// payment, or cannot be asked (the default).
        func payment(_ reference: String) async throws -> ProcessorPayment?

        /// Whether ``refundStatus(_:)`` answers: the processor's refunds can be looked up later
        /// (Stripe's `GET /v1/refunds/{id}`), so a refund is accepted first and confirmed — or
        /// failed — by asking again. `false` (the default): the refund call's answer is final.
        var looksUpRefunds: Bool { get }

        /// What the processor says now of the refund it answered with `refundReference`:
        /// ``ProcessorOperation/succeeded(reference:)`` once the money is on its way to the card,
        /// ``ProcessorOperation/pending(reference:)`` while it is not, ``ProcessorOperation/refused(_:)``
        /// when it failed or was cancelled. `nil` when the processor cannot be asked.
        func refundStatus(_ refundReference: String) async throws -> ProcessorOperation?

        /// The refund of payment `reference` made under `idempotencyKey`, found among the
        /// processor's refunds (for one whose answer was lost: idempotency keys expire — Stripe's
        /// after 24 hours —, so sending it again later could refund twice). `nil` when the
        /// processor has no such refund, or cannot be asked (``looksUpRefunds`` is `false`).
        func refundStatus(payment reference: String, idempotencyKey: String) async throws -> ProcessorOperation?

        /// The merchant's reference (``ProcessorAuthorization/reference``) the processor keeps for
        /// its payment `reference`: how a webhook that names only the processor's payment (a
        /// Stripe dispute names its PaymentIntent) finds Cashier's. `nil` when the processor has
        /// no such payment, or cannot be asked (the default).
        func merchantReference(ofPayment reference: String) async throws -> String?

        /// Whether the processor no longer holds the uncaptured authorisation `reference`, asked
        /// when it refuses a capture: it lapsed, or was cancelled outside Cashier, and the word
        /// that would have said so (a webhook) never came. `nil` while it still holds it, or when
        /// the processor cannot be asked (the default).
        func authorizationEnded(_ reference: String) async throws -> AuthorizationEnd?
    }
}

extension ApplePay.PaymentProcessor {
    public var tokenForm: ApplePay.TokenForm { .decrypted }

    public func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
        throw PaymentError(.invalidRequest, provider: .applePay, "this processor does not capture through Cashier")
    }

    public func void(_ reference: String, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
        throw PaymentError(.invalidRequest, provider: .applePay, "this processor does not void through Cashier")
    }

    public func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
        throw PaymentError(.invalidRequest, provider: .applePay, "this processor does not refund through Cashier: use its dashboard")
    }

    public func payments(from: Date, to: Date) async throws -> [ApplePay.ProcessorPayment]? { nil }

    public func payment(_ reference: String) async throws -> ApplePay.ProcessorPayment? { nil }

    public var looksUpRefunds: Bool { false }

    public func refundStatus(_ refundReference: String) async throws -> ApplePay.ProcessorOperation? { nil }

    public func refundStatus(payment reference: String, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation? { nil }

    public func merchantReference(ofPayment reference: String) async throws -> String? { nil }

    public func authorizationEnded(_ reference: String) async throws -> ApplePay.AuthorizationEnd? { nil }
}
