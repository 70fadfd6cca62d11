/// The `receivers` columns a receiver is read from (``StoredReceiver``), in select-list order.
enum ReceiverColumn: Int, SQLColumn {
    case id, merchant, provider, type, account, relationType, customRelation, status, createdAt, updatedAt

    static let table = "receivers"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .merchant: "merchant"
        case .provider: "provider"
        case .type: "type"
        case .account: "account"
        case .relationType: "relation_type"
        case .customRelation: "custom_relation"
        case .status: "status"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }
}
