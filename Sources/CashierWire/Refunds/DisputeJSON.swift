/// A dispute as an `order.disputed` webhook shows it: the payer's bank disputes a card payment,
/// and the merchant answers it at the processor (Stripe's Dashboard, Adyen's Customer Area) before
/// ``evidence_due_by``. The money it takes, and gives back when the dispute is won, follows as
/// `order.refunded` and `order.refund_failed` with a refund whose reason is `chargeback`.
public struct DisputeJSON: Codable, Sendable, Equatable {
    /// Always `dispute`.
    public let object: String
    /// The processor's id for it (`dp_…` at Stripe; the dispute's PSP reference at Adyen).
    public let id: String
    /// `stripe` or `adyen`.
    public let processor: String
    /// The payment disputed (`pay_…`).
    public let payment_id: String
    /// What the bank disputes.
    public let amount: Amount
    /// The bank's reason, in the processor's words (`fraudulent`, "Fraud: card absent environment").
    public let reason: String?
    /// Where the dispute stands, in the processor's words (Stripe's `needs_response`, …; Adyen's event code).
    public let status: String?
    /// The last moment to answer it (Unix seconds), when the processor says (Stripe's `evidence_details.due_by`).
    public let evidence_due_by: Int64?

    public init(
        id: String, processor: String, paymentID: String, amount: Amount, reason: String?, status: String?, evidenceDueBy: Int64?
    ) {
        object = "dispute"
        self.id = id
        self.processor = processor
        payment_id = paymentID
        self.amount = amount
        self.reason = reason
        self.status = status
        evidence_due_by = evidenceDueBy
    }
}
