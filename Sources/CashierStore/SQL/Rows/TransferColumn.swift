/// The `transfers` columns a transfer is read from (``StoredTransfer``), in select-list order.
enum TransferColumn: Int, SQLColumn {
    case id, merchant, provider, outBillNo, providerBillNo, appID, openID, currency, amountMinor, remark, scene, userName, status,
        providerState, packageInfo, failureReason, version, createdAt, updatedAt, finishedAt

    static let table = "transfers"

    /// Every column, in order: the select list the rows are read back from by name.
    static let list = selectList()

    var name: String {
        switch self {
        case .id: "id"
        case .merchant: "merchant"
        case .provider: "provider"
        case .outBillNo: "out_bill_no"
        case .providerBillNo: "provider_bill_no"
        case .appID: "app_id"
        case .openID: "openid"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .remark: "remark"
        case .scene: "scene"
        case .userName: "user_name"
        case .status: "status"
        case .providerState: "provider_state"
        case .packageInfo: "package_info"
        case .failureReason: "failure_reason"
        case .version: "version"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .finishedAt: "finished_at"
        }
    }
}
