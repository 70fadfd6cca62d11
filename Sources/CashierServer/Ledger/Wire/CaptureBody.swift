/// `POST /v1/orders/{id}/capture` and `/void`.
struct CaptureBody: Decodable, Sendable {
    /// What to capture (the rest is released); default: all of it.
    let amount: String?
    let amount_minor: WholeNumber?
    /// The payment (`pay_…`); default: the one that paid the order.
    let payment: String?
}
