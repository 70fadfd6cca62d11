/// The `complaints` columns a complaint is read from (``StoredComplaint``), in select-list order.
enum ComplaintColumn: Int, SQLColumn {
    case id, merchant, orderID, paymentID, snapshot, refundDecision, refundID, respondOverdueAt, settleOverdueAt, version, createdAt,
        updatedAt

    static let table = "complaints"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .merchant: "merchant"
        case .orderID: "order_id"
        case .paymentID: "payment_id"
        case .snapshot: "snapshot"
        case .refundDecision: "refund_decision"
        case .refundID: "refund_id"
        case .respondOverdueAt: "respond_overdue_at"
        case .settleOverdueAt: "settle_overdue_at"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }
}
