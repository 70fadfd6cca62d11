/// The `subscriptions` columns a subscription is read from (``StoredSubscription``), in select-list order.
enum SubscriptionColumn: Int, SQLColumn {
    case id, agreementID, merchant, currency, amountMinor, description, intervalUnit, intervalCount, anchorAt, period, nextChargeAt,
        maxAttempts, status, cancelReason, version, createdAt, updatedAt, canceledAt

    static let table = "subscriptions"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .agreementID: "agreement_id"
        case .merchant: "merchant"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .description: "description"
        case .intervalUnit: "interval_unit"
        case .intervalCount: "interval_count"
        case .anchorAt: "anchor_at"
        case .period: "period"
        case .nextChargeAt: "next_charge_at"
        case .maxAttempts: "max_attempts"
        case .status: "status"
        case .cancelReason: "cancel_reason"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .canceledAt: "canceled_at"
        }
    }
}
