/// The `events` columns a line of an order's log is read from (``OrderEvent``), in select-list order.
enum EventColumn: Int, SQLColumn {
    case sequence, orderID, kind, fromStatus, toStatus, detail, bodySHA256, createdAt

    static let table = "events"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .sequence: "sequence"
        case .orderID: "order_id"
        case .kind: "kind"
        case .fromStatus: "from_status"
        case .toStatus: "to_status"
        case .detail: "detail"
        case .bodySHA256: "body_sha256"
        case .createdAt: "created_at"
        }
    }
}
