public import Cashier

extension WeChatPay.V3.Transaction {
    /// Checks a verified v3 transaction (a `TRANSACTION.SUCCESS` resource or a query answer)
    /// against the merchant and the stored payment: mchid, appid, then amount and currency.
    /// - Parameters:
    ///   - expectedMchID: this merchant's mchid.
    ///   - appIDs: the appids the merchant pays for (an app, a mini program).
    ///   - expectedSub: a partner transaction's sub-merchant (`sub_mchid`); `nil` for a direct merchant's.
    ///   - expected: what the stored payment is for.
    /// - Throws: `PaymentError` `.merchantMismatch`, `.currencyMismatch` or `.amountMismatch`.
    public func check(mchID expectedMchID: String, appIDs: Set<String>, subMchID expectedSub: String? = nil, amount expected: Money) throws
    {
        guard mchID == expectedMchID, appIDs.contains(appID) else {
            throw PaymentError(.merchantMismatch, provider: .wechatV3, "mchid or appid of \(outTradeNo) is not this merchant's")
        }
        guard subMchID == expectedSub else {
            throw PaymentError(.merchantMismatch, provider: .wechatV3, "sub_mchid of \(outTradeNo) is not this payment's sub-merchant")
        }
        guard amount.currency == expected.currency else {
            throw PaymentError(
                .currencyMismatch, provider: .wechatV3,
                "the transaction is in \(amount.currency.code) but \(outTradeNo) is in \(expected.currency.code)")
        }
        guard amount.minorUnits == expected.minorUnits else {
            throw PaymentError(.amountMismatch, provider: .wechatV3, "the transaction says \(amount) but \(outTradeNo) is for \(expected)")
        }
    }
}
