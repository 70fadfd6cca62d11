import Cashier
public import CashierCrypto

extension Alipay {
    /// A verified agreement notification: `notify_type` `dut_user_sign` (the payer signed,
    /// `status` `NORMAL`) or `dut_user_unsign` (it ended, `status` `UNSIGN`).
    ///
    /// A signing goes to the sign request's `notify_url`; a merchant's unsign to the unsign
    /// request's `notify_url`; a payer's unsign in the Alipay app to the app's **application
    /// gateway**. All are forms signed as trade notifications are (every field but `sign` and
    /// `sign_type`, sorted, as ``Notification`` checks them).
    /// Answer ``successReply`` once it is recorded.
    ///
    /// ```swift
    /// guard let notification = try Alipay.AgreementNotification.verify(body, publicKey: alipayKey, appID: appID) else {
    ///     return  // another notification (trade_status_sync…)
    /// }
    /// ```
    public struct AgreementNotification: Sendable {
        /// The body the merchant answers once the notification is recorded; anything else makes Alipay retry.
        public static let successReply = "success"

        /// Which notification.
        public enum Kind: String, Sendable, Equatable {
            /// `dut_user_sign`: the payer signed.
            case signed = "dut_user_sign"
            /// `dut_user_unsign`: the agreement ended.
            case unsigned = "dut_user_unsign"
        }

        /// `notify_type`.
        public let kind: Kind
        /// `app_id`.
        public let appID: String
        /// `notify_id`: the same for every retry of one notification.
        public let notifyID: String
        /// `agreement_no`.
        public let agreementNo: String
        /// `external_agreement_no`.
        public let externalAgreementNo: String?
        /// `status`: `NORMAL` when signed, `UNSIGN` when ended.
        public let status: Agreement.Status
        /// `alipay_user_id`: the payer.
        public let alipayUserID: String?
        /// `personal_product_code`.
        public let personalProductCode: String?
        /// `sign_scene`.
        public let signScene: String?
        /// `sign_time`, Beijing.
        public let signTime: String?
        /// `unsign_time`, Beijing, when ended.
        public let unsignTime: String?
        /// Every field, as received, sorted by name.
        public let fields: FormFields

        /// Verifies and reads a notification body.
        /// - Parameters:
        ///   - body: the form body, as received.
        ///   - publicKey: Alipay's public key.
        ///   - appID: this merchant's app id, when the notification must be for it.
        ///   - signType: the merchant's sign type.
        /// - Returns: the notification; `nil` when the body verifies but is another notification (`trade_status_sync`…).
        /// - Throws: `PaymentError` `.malformedMessage`, `.signatureMismatch`, `.merchantMismatch`.
        public static func verify(_ body: some Collection<UInt8>, publicKey: RSAPublicKey, appID: String? = nil, signType: SignType = .rsa2)
            throws -> AgreementNotification?
        {
            let fields = try FormBody.fields(body)
            try Notification.verifySignature(fields, publicKey: publicKey, signType: signType)
            return try read(fields, appID: appID)
        }

        /// Verifies and reads one in certificate mode: an `alipay_cert_sn` in the body must name the loaded certificate.
        /// - Parameters:
        ///   - body: the form body, as received.
        ///   - certificates: the loaded certificates.
        ///   - appID: this merchant's app id, when the notification must be for it.
        ///   - signType: the merchant's sign type.
        /// - Returns: as ``verify(_:publicKey:appID:signType:)``.
        /// - Throws: as ``verify(_:publicKey:appID:signType:)``, and `.unknownKey`.
        public static func verify(
            _ body: some Collection<UInt8>, certificates: CertificateMode, appID: String? = nil, signType: SignType = .rsa2
        ) throws -> AgreementNotification? {
            let fields = try FormBody.fields(body)
            if let answered = fields["alipay_cert_sn"] { try certificates.check(alipayCertSN: answered) }
            try Notification.verifySignature(fields, publicKey: certificates.alipayPublicKey, signType: signType)
            return try read(fields, appID: appID)
        }

        private static func read(_ fields: FormFields, appID: String?) throws -> AgreementNotification? {
            if let appID, fields["app_id"] != appID {
                throw PaymentError(.merchantMismatch, provider: .alipay, "app_id is not this merchant's (\(appID))")
            }
            guard let kind = fields["notify_type"].flatMap(Kind.init(rawValue:)) else { return nil }
            func required(_ name: String) throws -> String {
                guard let value = fields[name], !value.isEmpty else {
                    throw PaymentError(.malformedMessage, provider: .alipay, "the \(kind.rawValue) notification has no \(name)")
                }
                return value
            }
            return AgreementNotification(
                kind: kind, appID: try required("app_id"), notifyID: try required("notify_id"), agreementNo: try required("agreement_no"),
                externalAgreementNo: fields["external_agreement_no"], status: Agreement.Status(rawValue: try required("status")),
                alipayUserID: fields["alipay_user_id"], personalProductCode: fields["personal_product_code"],
                signScene: fields["sign_scene"], signTime: fields["sign_time"], unsignTime: fields["unsign_time"], fields: fields)
        }
    }
}
