/// The `outbox` columns a webhook message is read from (``OutboxMessage``), in select-list order.
enum OutboxColumn: Int, SQLColumn {
    case id, orderID, type, payload, attempts, nextAttemptAt, deliveredAt, createdAt, lastError

    static let table = "outbox"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .orderID: "order_id"
        case .type: "type"
        case .payload: "payload"
        case .attempts: "attempts"
        case .nextAttemptAt: "next_attempt_at"
        case .deliveredAt: "delivered_at"
        case .createdAt: "created_at"
        case .lastError: "last_error"
        }
    }
}
