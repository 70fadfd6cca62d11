/// `POST /v1/orders/{id}/refunds`: how much (all that is left when neither amount is given), why,
/// and of which payment.
struct RefundBody: Decodable, Sendable {
    let amount: String?
    let amount_minor: WholeNumber?
    let reason: String?
    /// The payment to refund (`pay_…`); default: the one that paid the order.
    let payment: String?
}
