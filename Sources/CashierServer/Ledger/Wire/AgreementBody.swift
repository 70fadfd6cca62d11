import CashierWire

/// `POST /v1/agreements`: the payer's permission to be charged later, signed in their wallet.
struct AgreementBody: Decodable, Sendable {
    /// A period: `count` `unit`s (`day`, `week`, `month`, `year`).
    struct Period: Decodable, Sendable {
        let unit: String
        let count: Int
    }

    /// How the payer signs: `wechat.app`, `wechat.jsapi`, `wechat.h5` (委托代扣), `alipay.app`,
    /// `alipay.page`, `alipay.wap` (周期扣款), `applepay` (a first payment that stores the card).
    let method: String
    /// What the payer sees the agreement as (WeChat's `contract_display_account`): 1 to 32 characters.
    let description: String
    /// At most one charge per period.
    let period: Period
    /// The most one charge may take, in minor units.
    let single_limit: WholeNumber
    /// `CNY` (default) for WeChat Pay and Alipay.
    let currency: String?
    /// WeChat Pay's template (`plan_id`, from the merchant platform); default: the configured one.
    let plan_id: String?
    /// The first charge's day, `yyyy-MM-dd` (Alipay's `execute_time`); default: today.
    let first_charge_date: String?
    /// Where the wallet sends the payer back after signing (a site the merchant listed).
    let return_url: String?
}

/// `POST /v1/subscriptions`: an amount charged under an agreement once every period.
struct SubscriptionBody: Decodable, Sendable {
    /// The agreement (`agr_…`).
    let agreement: String
    /// In minor units: at most the agreement's `single_limit`.
    let amount: WholeNumber
    /// Default: the agreement's currency.
    let currency: String?
    /// What the charges' orders are described as (default: the agreement's description).
    let description: String?
    /// Default: the agreement's period (never shorter).
    let interval: AgreementBody.Period?
    /// Unix seconds: when period 1 begins and is charged (default: now).
    let anchor: WholeNumber?
    /// Attempts a period's charge gets before the subscription is canceled (1 to 10; default 4).
    let max_attempts: Int?
}

/// `POST /v1/agreements/{id}/authorize`: Apple Pay's first payment, which stores the card.
struct AgreementAuthorizeBody: Decodable, Sendable {
    /// The `PKPaymentToken`'s `paymentData`, as the app received it.
    let token: JSONValue
    /// The subscription the first charge is (default: the agreement's only one).
    let subscription: String?
}

/// `POST /v1/agreements/{id}/terminate` and `/v1/subscriptions/{id}/cancel`.
struct EndBody: Decodable, Sendable {
    /// Why (at most 64 characters; WeChat's `contract_termination_remark`).
    let reason: String?
}
