public import Cashier

extension WeChatPay.V2 {
    /// A verified v2 payment notification (`notify_url`).
    ///
    /// There is no way to get one without verifying: ``verify(_:merchant:signType:)`` parses,
    /// checks `return_code`, the signature (with the sign type the order was placed with — the
    /// notification may omit `sign_type`), then `appid` and `mch_id`, and only then reads the
    /// fields. The caller compares the amount with the stored order by ``check(amount:)`` and
    /// answers with ``NotificationReply``.
    ///
    /// ```swift
    /// let notification = try WeChatPay.V2.PaymentNotification.verify(body, merchant: merchant)
    /// try notification.check(amount: order.total)
    /// reply(WeChatPay.V2.NotificationReply.success.xmlString)
    /// ```
    public struct PaymentNotification: Sendable {
        /// `appid`, already checked against the merchant.
        public let appID: String
        /// `mch_id`, already checked against the merchant.
        public let mchID: String
        /// The merchant trade number.
        public let outTradeNo: String
        /// WeChat's transaction id.
        public let transactionID: String
        /// `total_fee` in `fee_type` (CNY when absent).
        public let amount: Money
        /// `result_code == SUCCESS`: the payment went through.
        public let isSuccess: Bool
        /// Every field of the notification.
        public let document: XMLDocument

        /// Verifies and parses a notification body.
        /// - Parameters:
        ///   - body: the raw body as received.
        ///   - merchant: whose key, appid and mch_id the notification must carry.
        ///   - signType: the sign type the order was placed with (the merchant's by default).
        /// - Throws: `PaymentError` — `.malformedMessage`, `.providerRejected` (return_code FAIL),
        ///   `.signatureMismatch`, `.merchantMismatch` — and nothing was trusted.
        @inlinable
        public static func verify(_ body: some Collection<UInt8>, merchant: Merchant, signType: SignType? = nil) throws
            -> PaymentNotification
        {
            try verify(document: XMLDocument(parsing: body), merchant: merchant, signType: signType)
        }

        /// Verifies a notification for one of several apps of the same merchant (an app and its mini
        /// programs share the mch_id and API key): the body is parsed once and checked against the
        /// merchant whose `appid` it names.
        public static func verify(_ body: some Collection<UInt8>, merchants: [Merchant], signType: SignType? = nil) throws
            -> PaymentNotification
        {
            let document = try XMLDocument(parsing: body)
            guard let merchant = merchants.first(where: { $0.appID == document["appid"] }) ?? merchants.first else {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "no merchant is configured for WeChat Pay notifications")
            }
            return try verify(document: document, merchant: merchant, signType: signType)
        }

        @usableFromInline
        static func verify(document: XMLDocument, merchant: Merchant, signType: SignType?) throws -> PaymentNotification {
            try VerifiedDocument.check(document, merchant: merchant, signType: signType ?? merchant.signType, signed: true)
            guard let outTradeNo = document["out_trade_no"], !outTradeNo.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the notification has no out_trade_no")
            }
            guard let result = document["result_code"], result == "SUCCESS" || result == "FAIL" else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "result_code is missing or neither SUCCESS nor FAIL")
            }
            return PaymentNotification(
                appID: merchant.appID,
                mchID: merchant.mchID,
                outTradeNo: outTradeNo,
                transactionID: document["transaction_id"] ?? "",
                amount: try VerifiedDocument.money(document, amountField: "total_fee"),
                isSuccess: document["result_code"] == "SUCCESS",
                document: document)
        }

        /// Checks the notified amount and currency against the stored order's.
        /// - Throws: `PaymentError` `.currencyMismatch` or `.amountMismatch`.
        public func check(amount expected: Money) throws {
            guard amount.currency == expected.currency else {
                throw PaymentError(
                    .currencyMismatch, provider: .wechatV2,
                    "the notification is in \(amount.currency.code) but order \(outTradeNo) is in \(expected.currency.code)")
            }
            guard amount.minorUnits == expected.minorUnits else {
                throw PaymentError(
                    .amountMismatch, provider: .wechatV2,
                    "the notification says \(amount) but order \(outTradeNo) is for \(expected)")
            }
        }
    }

    /// The checks every inbound v2 document shares.
    enum VerifiedDocument {
        static func check(_ document: XMLDocument, merchant: Merchant, signType: SignType, signed: Bool) throws {
            guard document.field("return_code", is: "SUCCESS") else {
                throw PaymentError(
                    .providerRejected, provider: .wechatV2, "return_code is not SUCCESS",
                    providerCode: document["return_code"], providerMessage: document["return_msg"])
            }
            if signed {
                try document.verifySignature(signer: merchant.signer, type: signType)
            }
            guard document["appid"] == merchant.appID else {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "appid is not this merchant's (\(merchant.appID))")
            }
            guard document["mch_id"] == merchant.mchID else {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "mch_id is not this merchant's (\(merchant.mchID))")
            }
        }

        /// An integer amount field in minor units, in `fee_type` (CNY when absent).
        static func money(_ document: XMLDocument, amountField: String, currencyField: String = "fee_type") throws -> Money {
            guard let text = document[amountField], !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), text.utf8.count <= 15,
                let minor = Int64(text)
            else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "\(amountField) is missing or not a whole number of fen")
            }
            let currency: Currency
            do {
                currency = try document[currencyField].map { try Currency(code: $0) } ?? .cny
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "\(currencyField) is not an ISO 4217 currency")
            }
            return Money(minorUnits: minor, currency: currency)
        }
    }
}
