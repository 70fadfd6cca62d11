/// An agreement as `/v1/agreements` and its webhooks give it: the payer's standing permission to
/// be charged later (WeChat Pay's 委托代扣 contract, Alipay's 周期扣款 agreement, an Apple Pay
/// processor's stored payment method).
public struct AgreementJSON: Codable, Sendable, Equatable {
    /// `agr_…`.
    public let id: String
    public let object: String
    /// `wechat.v2`, `alipay`, `applepay`.
    public let provider: String
    /// How the payer signs (`wechat.app`, `alipay.page`, `applepay`, …).
    public let method: String
    /// `pending`, `active`, `terminated`, `failed`.
    public let status: String
    /// The merchant's number for it at the provider (`contract_code`, `external_agreement_no`).
    public let external_no: String
    /// The provider's number once signed (`contract_id`, `agreement_no`, the stored method).
    public let provider_agreement_id: String?
    /// WeChat Pay's template (`plan_id`).
    public let plan_id: String?
    /// What the payer sees it as.
    public let description: String
    /// At most one charge per `count` `unit`s (`day`, `week`, `month`, `year`).
    public let period: Period
    /// The most one charge may take.
    public let single_limit: Amount
    /// The provider's own word for it (`NORMAL`, `STOP`, `0`, `1`, …).
    public let provider_state: String?
    /// Why it ended or failed.
    public let end_reason: String?
    /// What the app opens to sign it: only in the answer to its creation, while pending.
    public let launch: AgreementLaunchJSON?
    /// The sub-merchant it belongs to, if any.
    public let merchant: String?
    /// Unix seconds.
    public let created: Int64
    public let activated: Int64?
    public let ended: Int64?

    /// A period: `count` `unit`s.
    public struct Period: Codable, Sendable, Equatable {
        public let unit: String
        public let count: Int
        public init(unit: String, count: Int) {
            self.unit = unit
            self.count = count
        }
    }

    public init(
        id: String, provider: String, method: String, status: String, external_no: String, provider_agreement_id: String?,
        plan_id: String?, description: String, period: Period, single_limit: Amount, provider_state: String?, end_reason: String?,
        launch: AgreementLaunchJSON?, merchant: String?, created: Int64, activated: Int64?, ended: Int64?
    ) {
        self.id = id
        object = "agreement"
        self.provider = provider
        self.method = method
        self.status = status
        self.external_no = external_no
        self.provider_agreement_id = provider_agreement_id
        self.plan_id = plan_id
        self.description = description
        self.period = period
        self.single_limit = single_limit
        self.provider_state = provider_state
        self.end_reason = end_reason
        self.launch = launch
        self.merchant = merchant
        self.created = created
        self.activated = activated
        self.ended = ended
    }
}
