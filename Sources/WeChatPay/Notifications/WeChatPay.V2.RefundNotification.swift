public import Cashier
import CashierCrypto

extension WeChatPay.V2 {
    /// A v2 refund notification, with its `req_info` decrypted.
    ///
    /// Refund notifications carry no `sign`: `req_info` is AES-256-ECB under the lower-case hex
    /// MD5 of the API key, so only someone with the key could have made it. The outer `appid`
    /// and `mch_id` are checked, then `req_info` is decrypted and parsed as a flat `<root>`.
    public struct RefundNotification: Sendable {
        /// The merchant trade number of the refunded order.
        public let outTradeNo: String
        /// The merchant refund number.
        public let outRefundNo: String
        /// WeChat's refund id.
        public let refundID: String
        /// `SUCCESS`, `CHANGE` (failed; handle offline) or `REFUNDCLOSE`.
        public let refundStatus: String
        /// `refund_fee`: the amount refunded.
        public let refundAmount: Money
        /// `total_fee`: the order's amount.
        public let totalAmount: Money
        /// Every decrypted field.
        public let document: XMLDocument
        /// The sub-merchant (`sub_mch_id` of the outer document) when a service provider's refund it is.
        public var subMchID: String? = nil

        /// Verifies the outer document and decrypts `req_info`.
        /// - Throws: `PaymentError` (`.malformedMessage`, `.providerRejected`, `.merchantMismatch`,
        ///   `.decryptionFailure`).
        public static func verify(_ body: some Collection<UInt8>, merchant: Merchant) throws -> RefundNotification {
            let outer = try XMLDocument(parsing: body)
            try VerifiedDocument.check(outer, merchant: merchant, signType: merchant.signType, signed: false)
            guard let reqInfo = outer["req_info"], !reqInfo.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the refund notification has no req_info")
            }
            let document = try decrypt(reqInfo: reqInfo, apiKey: merchant.apiKey)
            func required(_ name: String) throws -> String {
                guard let value = document[name], !value.isEmpty else {
                    throw PaymentError(.malformedMessage, provider: .wechatV2, "req_info has no \(name)")
                }
                return value
            }
            return RefundNotification(
                outTradeNo: try required("out_trade_no"),
                outRefundNo: try required("out_refund_no"),
                refundID: document["refund_id"] ?? "",
                refundStatus: try required("refund_status"),
                refundAmount: try VerifiedDocument.money(document, amountField: "refund_fee"),
                totalAmount: try VerifiedDocument.money(document, amountField: "total_fee"),
                document: document, subMchID: outer["sub_mch_id"])
        }

        /// Verifies a refund notification for one of several apps of the same merchant (an app, its
        /// mini programs, its official account: one mch_id and API key): checked against the
        /// merchant whose `appid` it names, so a refund of a mini-program payment is accepted too.
        public static func verify(_ body: some Collection<UInt8>, merchants: [Merchant]) throws -> RefundNotification {
            let outer = try XMLDocument(parsing: body)
            guard let merchant = merchants.first(where: { $0.appID == outer["appid"] }) ?? merchants.first else {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "no merchant is configured for WeChat Pay refund notifications")
            }
            return try verify(body, merchant: merchant)
        }

        /// Decrypts `req_info` (base64 of AES-256-ECB, key = lower-case hex MD5 of the API key).
        /// - Throws: `PaymentError.decryptionFailure` for a wrong key or corrupted data.
        public static func decrypt(reqInfo: String, apiKey: String) throws -> XMLDocument {
            let key = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash(apiKey)).utf8)
            let plaintext: [UInt8]
            do {
                plaintext = try InsecureAESECB.decrypt(Base64.decode(reqInfo), key: key)
            } catch {
                throw PaymentError(.decryptionFailure, provider: .wechatV2, "req_info does not decrypt with this API key")
            }
            do {
                return try XMLDocument(parsing: plaintext)
            } catch {
                // Wrong keys pass the padding check about once in 256 tries and yield garbage.
                throw PaymentError(.decryptionFailure, provider: .wechatV2, "req_info does not decrypt with this API key")
            }
        }
    }
}
