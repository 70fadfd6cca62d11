public import Cashier
public import CashierCrypto
import Foundation

extension Alipay {
    /// A verified `alipay.trade.order.settle.notify`: the result of an async settle, sent through
    /// Alipay's message service to the app's **application gateway** (not a `notify_url`) as a
    /// form with `msg_method`, `notify_id`, `utc_timestamp`, `app_id`, `version`, `charset`,
    /// `biz_content` (JSON), `sign_type` and `sign`. Answer ``successReply`` once it is recorded.
    ///
    /// The signature is checked over every parameter except `sign`, sorted, **`sign_type` kept**
    /// (Alipay's rsaCheckV2, as its other message-service notifications are signed). That rule
    /// comes from the documentation by analogy; it has not been checked against a live gateway.
    public struct SettleNotification: Sendable {
        /// The body the app answers once the notification is recorded; anything else makes Alipay retry.
        public static let successReply = "success"
        /// The `msg_method` of a settle result.
        public static let method = "alipay.trade.order.settle.notify"

        public let appID: String
        /// `notify_id`: the same for every retry of one notification.
        public let notifyID: String
        /// `utc_timestamp`, milliseconds.
        public let timestamp: String?
        /// `biz_content`, read.
        public let settle: Settle
        /// Every field, as received, sorted by name.
        public let fields: FormFields

        /// Verifies and parses a notification body.
        /// - Parameters:
        ///   - body: the form body, as received.
        ///   - publicKey: Alipay's public key.
        ///   - appID: this app's id, when the notification must be for it.
        ///   - signType: the app's sign type.
        /// - Throws: `PaymentError` `.signatureMismatch`, `.merchantMismatch`, `.malformedMessage`.
        public static func verify(_ body: some Collection<UInt8>, publicKey: RSAPublicKey, appID: String? = nil, signType: SignType = .rsa2)
            throws -> SettleNotification
        {
            let fields = try FormBody.fields(body)
            guard let sign = fields["sign"], !sign.isEmpty else {
                throw PaymentError(.signatureMismatch, provider: .alipay, "the settle notification is not signed")
            }
            if let declared = fields["sign_type"], declared != signType.rawValue {
                throw PaymentError(
                    .signatureMismatch, provider: .alipay, "sign_type is \(declared.prefix(10)), not the merchant's \(signType.rawValue)")
            }
            guard Signer.isValidSignature(sign, content: fields.content(excluding: ["sign"]), publicKey: publicKey, type: signType) else {
                throw PaymentError(
                    .signatureMismatch, provider: .alipay,
                    "the settle notification's \(signType.rawValue) signature does not verify with Alipay's public key")
            }
            return try parse(fields, appID: appID)
        }

        /// Verifies and parses one in certificate mode: an `alipay_cert_sn` must name the loaded certificate.
        public static func verify(
            _ body: some Collection<UInt8>, certificates: CertificateMode, appID: String? = nil, signType: SignType = .rsa2
        ) throws -> SettleNotification {
            let fields = try FormBody.fields(body)
            if let answered = fields["alipay_cert_sn"] { try certificates.check(alipayCertSN: answered) }
            return try verify(body, publicKey: certificates.alipayPublicKey, appID: appID, signType: signType)
        }

        private static func parse(_ fields: FormFields, appID: String?) throws -> SettleNotification {
            guard fields["msg_method"] == method else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay, "msg_method is \(fields["msg_method"]?.prefix(64) ?? "missing"), not \(method)")
            }
            guard let app = fields["app_id"], !app.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the settle notification has no app_id")
            }
            if let appID, app != appID {
                throw PaymentError(.merchantMismatch, provider: .alipay, "app_id is not this merchant's (\(appID))")
            }
            guard let text = fields["biz_content"],
                let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            else { throw PaymentError(.malformedMessage, provider: .alipay, "biz_content is not a JSON object") }
            let settle = try Settle(node: object)
            guard settle.outRequestNo?.isEmpty == false else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the settle notification names no out_request_no")
            }
            return SettleNotification(
                appID: app, notifyID: fields["notify_id"] ?? "", timestamp: fields["utc_timestamp"], settle: settle, fields: fields)
        }
    }
}
