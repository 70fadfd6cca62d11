/// The `api_keys` columns an API key is read from (``APIKeyRecord``), in select-list order.
enum APIKeyColumn: Int, SQLColumn {
    case id, hash, prefix, label, createdAt, revokedAt, lastUsedAt, merchant

    static let table = "api_keys"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .hash: "hash"
        case .prefix: "prefix"
        case .label: "label"
        case .createdAt: "created_at"
        case .revokedAt: "revoked_at"
        case .lastUsedAt: "last_used_at"
        case .merchant: "merchant"
        }
    }
}
