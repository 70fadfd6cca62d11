/// A profit-sharing split of a paid order, as the API answers it: shares of the payment sent to
/// receivers, each with its own result, and whether the request ended the order's sharing.
///
/// ```swift
/// let split = try JSONDecoder().decode(SplitJSON.self, from: body)
/// if split.status == "finished" { for share in split.receivers where share.result == "succeeded" { credit(share.account) } }
/// ```
public struct SplitJSON: Codable, Sendable, Equatable {
    /// One receiver's share.
    public struct Share: Codable, Sendable, Equatable {
        /// The provider's receiver type (`MERCHANT_ID`, `PERSONAL_OPENID`, Alipay's `userId`, `loginName`).
        public let type: String
        public let account: String
        public let amount: Amount
        public let description: String
        /// `pending`, `succeeded`, or `closed` (it did not arrive; the money stayed with the merchant).
        public let result: String
        public let failure_reason: String?
        /// What returns took back from this receiver.
        public let returned: Amount

        public init(
            type: String, account: String, amount: Amount, description: String, result: String, failure_reason: String?, returned: Amount
        ) {
            self.type = type
            self.account = account
            self.amount = amount
            self.description = description
            self.result = result
            self.failure_reason = failure_reason
            self.returned = returned
        }
    }

    /// `spl_…`.
    public let id: String
    public let order_id: String
    public let payment_id: String
    /// `wechat` or `alipay`.
    public let provider: String
    /// The number the provider knows the request by (`out_order_no`, Alipay's `out_request_no`).
    public let out_order_no: String
    /// The provider's number for it (`order_id`, `settle_no`), once it answered.
    public let provider_order_id: String?
    /// `pending`, `processing`, `finished`, `failed`.
    public let status: String
    public let provider_state: String?
    /// The sum of the shares.
    public let amount: Amount
    /// Whether this request ended the order's sharing (the rest went back to the merchant).
    public let finish: Bool
    public let description: String
    public let receivers: [Share]
    public let failure_reason: String?
    /// Unix seconds.
    public let created: Int64
    public let updated: Int64
    public let finished: Int64?

    public init(
        id: String, order_id: String, payment_id: String, provider: String, out_order_no: String, provider_order_id: String?,
        status: String, provider_state: String?, amount: Amount, finish: Bool, description: String, receivers: [Share],
        failure_reason: String?, created: Int64, updated: Int64, finished: Int64?
    ) {
        self.id = id
        self.order_id = order_id
        self.payment_id = payment_id
        self.provider = provider
        self.out_order_no = out_order_no
        self.provider_order_id = provider_order_id
        self.status = status
        self.provider_state = provider_state
        self.amount = amount
        self.finish = finish
        self.description = description
        self.receivers = receivers
        self.failure_reason = failure_reason
        self.created = created
        self.updated = updated
        self.finished = finished
    }
}
