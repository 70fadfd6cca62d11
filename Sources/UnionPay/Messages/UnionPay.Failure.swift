import Cashier

extension UnionPay {
    /// A `PaymentError` from this module: the message says "UnionPay", `providerCode` and
    /// `providerMessage` carry `respCode` and `respMsg` verbatim when UnionPay answered.
    static func failure(
        _ code: PaymentError.Code, _ message: String, respCode: String? = nil, respMsg: String? = nil, details: String? = nil
    ) -> PaymentError {
        PaymentError(
            code, provider: provider, "UnionPay: " + message, providerCode: respCode, providerMessage: respMsg, details: details)
    }
}
