/// The `payments` columns a payment attempt is read from (``StoredPayment``), in select-list order.
enum PaymentColumn: Int, SQLColumn {
    case id, orderID, method, provider, outTradeNo, appID, merchantID, payer, transactionID, walletToken, currency, amountMinor,
        refundedMinor, reservedMinor, status, refundRequired, failureReason, createdAt, updatedAt, succeededAt, capture, contacts,
        sharedMinor

    static let table = "payments"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .orderID: "order_id"
        case .method: "method"
        case .provider: "provider"
        case .outTradeNo: "out_trade_no"
        case .appID: "app_id"
        case .merchantID: "merchant_id"
        case .payer: "payer"
        case .transactionID: "transaction_id"
        case .walletToken: "wallet_token"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .refundedMinor: "refunded_minor"
        case .reservedMinor: "reserved_minor"
        case .status: "status"
        case .refundRequired: "refund_required"
        case .failureReason: "failure_reason"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .succeededAt: "succeeded_at"
        case .capture: "capture"
        case .contacts: "contacts"
        case .sharedMinor: "shared_minor"
        }
    }
}
