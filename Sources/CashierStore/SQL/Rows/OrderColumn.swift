/// The `orders` columns an order is read from (``StoredOrder``), in select-list order.
enum OrderColumn: Int, SQLColumn {
    case id, outTradeNo, status, currency, totalMinor, refundedMinor, description, metadata, items, clientSecret, refundRequired,
        version, createdAt, expiresAt, settledPaymentID, sheet, returnURL, merchant, profitSharing

    static let table = "orders"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .outTradeNo: "out_trade_no"
        case .status: "status"
        case .currency: "currency"
        case .totalMinor: "total_minor"
        case .refundedMinor: "refunded_minor"
        case .description: "description"
        case .metadata: "metadata"
        case .items: "items"
        case .clientSecret: "client_secret"
        case .refundRequired: "refund_required"
        case .version: "version"
        case .createdAt: "created_at"
        case .expiresAt: "expires_at"
        case .settledPaymentID: "settled_payment_id"
        case .sheet: "sheet"
        case .returnURL: "return_url"
        case .merchant: "merchant"
        case .profitSharing: "profit_sharing"
        }
    }
}
