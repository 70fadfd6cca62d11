/// Who asked for records of money a processor or provider moved by itself (a failed capture, a
/// chargeback, a refund made in its dashboard or console): they are done there already, so the
/// refund job never sends them to anyone. The names are what refunds' `requested_by` says.
enum ProcessorActor {
    /// Adyen's webhooks: failed captures, chargebacks, Customer Area refunds.
    static let adyen = "adyen"
    /// Stripe's webhooks: disputes, Dashboard refunds.
    static let stripe = "stripe"
    /// Refunds made in WeChat Pay's merchant platform.
    static let wechat = "wechat"
    /// Refunds made in Alipay's merchant center.
    static let alipay = "alipay"

    static let all: Set<String> = [adyen, stripe, wechat, alipay]
}
