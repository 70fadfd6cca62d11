/// The `agreements` columns an agreement is read from (``StoredAgreement``), in select-list order.
enum AgreementColumn: Int, SQLColumn {
    case id, merchant, provider, method, externalNo, providerAgreementID, payer, planID, description, periodUnit, periodCount,
        currency, singleLimitMinor, firstChargeAt, status, providerState, endReason, version, createdAt, updatedAt, activatedAt,
        endedAt

    static let table = "agreements"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .merchant: "merchant"
        case .provider: "provider"
        case .method: "method"
        case .externalNo: "external_no"
        case .providerAgreementID: "provider_agreement_id"
        case .payer: "payer"
        case .planID: "plan_id"
        case .description: "description"
        case .periodUnit: "period_unit"
        case .periodCount: "period_count"
        case .currency: "currency"
        case .singleLimitMinor: "single_limit_minor"
        case .firstChargeAt: "first_charge_at"
        case .status: "status"
        case .providerState: "provider_state"
        case .endReason: "end_reason"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .activatedAt: "activated_at"
        case .endedAt: "ended_at"
        }
    }
}
