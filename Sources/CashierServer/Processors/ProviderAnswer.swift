import Cashier

/// How the server reads a provider's error: a refusal it can act on, or an outcome it cannot know.
enum ProviderAnswer {
    /// Provider codes that mean "try again": the request may or may not have been processed.
    static let retryableCodes: Set<String> = [
        "SYSTEMERROR", "SYSTEM_ERROR", "BIZERR_NEED_RETRY", "FREQUENCY_LIMITED", "FREQUENCY_LIMIT_EXCEED", "ACQ.SYSTEM_ERROR",
        "aop.ACQ.SYSTEM_ERROR", "isp.unknow-error",
    ]

    /// `true` when the provider answered, verifiably, that it did not do what was asked (a
    /// business refusal): safe to record as failed. A lost answer, a forged or unverifiable one,
    /// or a "system busy" is not: the outcome is unknown and the request must be asked again.
    static func isDefinitiveRefusal(_ error: PaymentError) -> Bool {
        guard error.code == .providerRejected else { return false }
        return !(error.providerCode.map(retryableCodes.contains) ?? false)
    }

    /// `true` when the provider will not place this trade number again, though another number
    /// would go through: it holds the number with other details (WeChat Pay's `OUT_TRADE_NO_USED`,
    /// "商户订单号重复", in API v2 and v3), or its trade was closed (`ORDERCLOSED`, `ORDER_CLOSED`,
    /// Alipay's `ACQ.TRADE_HAS_CLOSE`) — by another start of the same payment a moment ago, say.
    /// UnionPay's `12` 重复交易 is one too: an `orderId` and `txnTime` sent before (its answer lost)
    /// are never placed again.
    static func needsNewTradeNumber(_ error: PaymentError) -> Bool {
        guard error.code == .providerRejected, let code = error.providerCode else { return false }
        return newNumberCodes.contains(code) || (error.provider == .unionpay && code == "12")
    }

    static let newNumberCodes: Set<String> = ["OUT_TRADE_NO_USED", "ORDERCLOSED", "ORDER_CLOSED", "ACQ.TRADE_HAS_CLOSE"]

    /// What a refund call came to: accepted (with the provider's refund id when it gives one), or
    /// refused for good. Anything else — no answer, a forged one, "busy" — is thrown: the outcome
    /// is unknown and the refund is asked about again.
    static func refund(_ call: () async throws -> String?) async throws -> ProviderRefundState {
        do {
            let id = try await call()
            return .succeeded(providerRefundID: id?.isEmpty == false ? id : nil)
        } catch let error as PaymentError where isDefinitiveRefusal(error) {
            return .failed(words(error))
        }
    }

    /// The provider's own words for a refusal, for the record.
    static func words(_ error: PaymentError) -> String {
        let parts = [error.providerCode, error.providerMessage].compactMap { $0 }
        return parts.isEmpty ? error.message : parts.joined(separator: ": ")
    }
}
