/// The `split_returns` columns a return is read from (``StoredSplitReturn``), in select-list order.
enum SplitReturnColumn: Int, SQLColumn {
    case id, splitID, orderID, outReturnNo, account, currency, amountMinor, description, status, providerReturnID, providerState,
        failureReason, createdAt, updatedAt

    static let table = "split_returns"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .splitID: "split_id"
        case .orderID: "order_id"
        case .outReturnNo: "out_return_no"
        case .account: "account"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .description: "description"
        case .status: "status"
        case .providerReturnID: "provider_return_id"
        case .providerState: "provider_state"
        case .failureReason: "failure_reason"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }
}
