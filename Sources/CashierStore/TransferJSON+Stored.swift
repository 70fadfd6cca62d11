import Cashier
public import CashierWire

extension TransferJSON {
    /// The transfer as the API and its webhooks give it.
    /// - Parameter mchID: the merchant id at the provider, for the payee's confirmation (`nil` when not known here).
    public init(_ transfer: StoredTransfer, mchID: String?) {
        self.init(
            id: transfer.id, provider: transfer.provider == "wechat.v3" ? "wechat" : transfer.provider, out_bill_no: transfer.outBillNo,
            provider_bill_no: transfer.providerBillNo, status: transfer.status.rawValue, provider_state: transfer.providerState,
            amount: Amount(transfer.amount), openid: transfer.openID, remark: transfer.remark, scene: transfer.scene,
            user_name_given: transfer.userName != nil, package_info: transfer.packageInfo, mch_id: mchID, app_id: transfer.appID,
            failure_reason: transfer.failureReason, created: Int64(transfer.createdAt.timeIntervalSince1970),
            updated: Int64(transfer.updatedAt.timeIntervalSince1970), finished: transfer.finishedAt.map { Int64($0.timeIntervalSince1970) })
    }
}
