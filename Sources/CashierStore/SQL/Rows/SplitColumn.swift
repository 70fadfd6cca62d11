/// The `splits` columns a split is read from (``StoredSplit``), in select-list order.
enum SplitColumn: Int, SQLColumn {
    case id, orderID, paymentID, merchant, provider, outOrderNo, transactionID, providerOrderID, shares, currency, amountMinor, finish,
        description, status, providerState, failureReason, version, createdAt, updatedAt, finishedAt

    static let table = "splits"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .orderID: "order_id"
        case .paymentID: "payment_id"
        case .merchant: "merchant"
        case .provider: "provider"
        case .outOrderNo: "out_order_no"
        case .transactionID: "transaction_id"
        case .providerOrderID: "provider_order_id"
        case .shares: "shares"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .finish: "finish"
        case .description: "description"
        case .status: "status"
        case .providerState: "provider_state"
        case .failureReason: "failure_reason"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .finishedAt: "finished_at"
        }
    }
}
