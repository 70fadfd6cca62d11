/// The `refunds` columns a refund is read from (``StoredRefund``), in select-list order.
enum RefundColumn: Int, SQLColumn {
    case id, orderID, paymentID, outRefundNo, currency, amountMinor, status, providerRefundID, reason, failureReason, createdAt,
        updatedAt, finishedAt, confirmedAt, requestedBy

    static let table = "refunds"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .orderID: "order_id"
        case .paymentID: "payment_id"
        case .outRefundNo: "out_refund_no"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .status: "status"
        case .providerRefundID: "provider_refund_id"
        case .reason: "reason"
        case .failureReason: "failure_reason"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .finishedAt: "finished_at"
        case .confirmedAt: "confirmed_at"
        case .requestedBy: "requested_by"
        }
    }
}
