import Cashier

/// What WeChat Pay's merchant platform (商户平台) checks before it refunds an order by hand, for
/// either API's sandbox.
enum MerchantPlatform {
    /// The amount to refund (`requested`, or by default all that is left) of order `number`, whose
    /// trade `state` is as WeChat reports it; `status` must be one of `statuses`.
    /// - Throws: `PaymentError` saying why it cannot be refunded.
    static func refundAmount(
        of number: String, state: String, total: Int64, refunded: Int64, requested: Int64?, status: String, statuses: [String],
        provider: PaymentProvider
    ) throws -> Int64 {
        func refused(_ why: String) -> PaymentError { PaymentError(.invalidRequest, provider: provider, why) }
        guard state == "SUCCESS" || state == "REFUND" else { throw refused("order \(number) is \(state), not paid") }
        guard statuses.contains(status) else { throw refused("status is \(statuses.joined(separator: ", "))") }
        let amount = requested ?? (total - refunded)
        guard amount > 0, refunded + amount <= total else { throw refused("order \(number) has less than \(amount) left to refund") }
        return amount
    }
}
