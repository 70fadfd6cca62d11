import CashierWire

/// `GET /v1/orders/{id}/splits`: an order's splits and returns, and what is left to share.
struct SplitsPage: Encodable, Sendable {
    let order_id: String
    /// What the order's payment took.
    let paid: Amount
    /// What refunds hold (made or being made).
    let refunded: Amount
    /// What splits hold (shares sent or being sent, less returns).
    let shared: Amount
    /// What may still be shared: `paid − refunded − shared`, or nothing once sharing is finished.
    let shareable: Amount
    /// Whether the order's sharing was finished (nothing more can be shared).
    let finished: Bool
    let data: [SplitJSON]
    let returns: [SplitReturnJSON]
}
