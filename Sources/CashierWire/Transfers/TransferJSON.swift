/// A transfer out to a person (WeChat Pay's 商家转账), as the API answers it.
///
/// While `status` is `waiting_for_payee` the app hands `package_info` (with `mch_id` and
/// `app_id`) to the payee's WeChat, which asks them to confirm (`wx.requestMerchantTransfer`).
///
/// ```swift
/// let transfer = try JSONDecoder().decode(TransferJSON.self, from: body)
/// if transfer.status == "waiting_for_payee", let package = transfer.package_info { confirm(package) }
/// ```
public struct TransferJSON: Codable, Sendable, Equatable {
    /// `tr_…`.
    public let id: String
    /// `wechat`.
    public let provider: String
    /// The number the provider knows it by (`out_bill_no`): one transfer however often asked.
    public let out_bill_no: String
    /// The provider's number (`transfer_bill_no`), once it answered.
    public let provider_bill_no: String?
    /// `pending`, `waiting_for_payee`, `processing`, `succeeded`, `failed`, `cancelled`.
    public let status: String
    /// The provider's own state (`WAIT_USER_CONFIRM`, `TRANSFERING`, `SUCCESS`, …).
    public let provider_state: String?
    public let amount: Amount
    public let openid: String
    public let remark: String
    /// The provider's transfer scene (`transfer_scene_id`).
    public let scene: String
    /// Whether the payee's real name was given (it is never returned).
    public let user_name_given: Bool
    /// What the app hands to WeChat while the transfer waits for its payee.
    public let package_info: String?
    /// The merchant id (`mchId`) and app id (`appId`) WeChat's confirmation asks for with `package_info`.
    public let mch_id: String?
    public let app_id: String
    public let failure_reason: String?
    /// Unix seconds.
    public let created: Int64
    public let updated: Int64
    public let finished: Int64?

    public init(
        id: String, provider: String, out_bill_no: String, provider_bill_no: String?, status: String, provider_state: String?,
        amount: Amount, openid: String, remark: String, scene: String, user_name_given: Bool, package_info: String?, mch_id: String?,
        app_id: String, failure_reason: String?, created: Int64, updated: Int64, finished: Int64?
    ) {
        self.id = id
        self.provider = provider
        self.out_bill_no = out_bill_no
        self.provider_bill_no = provider_bill_no
        self.status = status
        self.provider_state = provider_state
        self.amount = amount
        self.openid = openid
        self.remark = remark
        self.scene = scene
        self.user_name_given = user_name_given
        self.package_info = package_info
        self.mch_id = mch_id
        self.app_id = app_id
        self.failure_reason = failure_reason
        self.created = created
        self.updated = updated
        self.finished = finished
    }
}
