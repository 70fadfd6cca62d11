/// The `idempotency_keys` columns an Idempotency-Key taken before is read from (``IdempotencyReservation``), in select-list order.
enum IdempotencyKeyColumn: Int, SQLColumn {
    case requestSHA256, status, body

    static let table = "idempotency_keys"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .requestSHA256: "request_sha256"
        case .status: "status"
        case .body: "body"
        }
    }
}
