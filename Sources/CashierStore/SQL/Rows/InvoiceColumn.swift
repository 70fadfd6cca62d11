/// The `invoices` columns an invoice is read from (``StoredInvoice``), in select-list order.
enum InvoiceColumn: Int, SQLColumn {
    case id, subscriptionID, period, orderID, currency, amountMinor, status, attempts, failures, nextAttemptAt, lastError, periodStart,
        version,
        createdAt, updatedAt, finishedAt

    static let table = "invoices"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .subscriptionID: "subscription_id"
        case .period: "period"
        case .orderID: "order_id"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .status: "status"
        case .attempts: "attempts"
        case .failures: "failures"
        case .nextAttemptAt: "next_attempt_at"
        case .lastError: "last_error"
        case .periodStart: "period_start"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .finishedAt: "finished_at"
        }
    }
}
