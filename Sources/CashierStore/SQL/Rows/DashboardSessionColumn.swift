/// The `dashboard_sessions` columns a dashboard session is read from (``DashboardSessionRecord``), in select-list order.
enum DashboardSessionColumn: Int, SQLColumn {
    case idHash, csrf, expiresAt, keyID

    static let table = "dashboard_sessions"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .idHash: "id_hash"
        case .csrf: "csrf"
        case .expiresAt: "expires_at"
        case .keyID: "key_id"
        }
    }
}
