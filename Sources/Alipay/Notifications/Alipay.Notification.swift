public import Cashier
public import CashierCrypto

extension Alipay {
    /// A verified Alipay async notification (`notify_url`).
    ///
    /// ``verify(_:publicKey:appID:sellerID:signType:)`` parses the form body, refuses a declared
    /// `sign_type` other than the merchant's, verifies `sign` over the content with `sign` and
    /// `sign_type` removed (the rule for trade notifications; content keeping `sign_type`, as some
    /// other notification types are signed, is accepted too — both need Alipay's key), then checks
    /// `app_id` and the seller. Compare with the stored order by ``check(outTradeNo:amount:)``, record
    /// it durably, and only then answer ``successReply``.
    public struct Notification: Sendable {
        /// The body a merchant answers once the notification is recorded; anything else makes Alipay retry.
        public static let successReply = "success"

        public let appID: String
        public let outTradeNo: String
        /// Alipay's trade number.
        public let tradeNo: String
        /// `WAIT_BUYER_PAY`, `TRADE_SUCCESS`, `TRADE_FINISHED` or `TRADE_CLOSED`.
        public let tradeStatus: String
        /// `total_amount`, in yuan.
        public let totalAmount: Money
        public let sellerID: String?
        /// Every field, as received, sorted by name.
        public let fields: FormFields

        /// `true` for `TRADE_SUCCESS` and `TRADE_FINISHED`: the money arrived.
        public var isPaid: Bool { tradeStatus == "TRADE_SUCCESS" || tradeStatus == "TRADE_FINISHED" }

        /// A refund's notification: Alipay sends the trade's `trade_status_sync` again when part
        /// or all of it is refunded, with `out_biz_no` (the refund's `out_request_no`),
        /// `refund_fee` and `gmt_refund`; `trade_status` stays `TRADE_SUCCESS` after a partial
        /// refund and becomes `TRADE_CLOSED` after a full one. `nil` for a payment's.
        public var refund: Refund? {
            guard let number = fields["out_biz_no"], !number.isEmpty, fields["refund_fee"] != nil || fields["gmt_refund"] != nil else {
                return nil
            }
            return Refund(
                outRequestNo: number, refundedSoFar: fields["refund_fee"].flatMap { try? Money(decimal: $0, currency: .cny) },
                time: fields["gmt_refund"])
        }

        /// What a refund's notification says.
        public struct Refund: Sendable, Equatable {
            /// The refund's `out_request_no`, as `out_biz_no`.
            public let outRequestNo: String
            /// `refund_fee`: everything refunded from the trade so far, this refund included.
            public let refundedSoFar: Money?
            /// `gmt_refund`, Beijing time.
            public let time: String?
        }

        /// Verifies and parses a notification body.
        /// - Parameters:
        ///   - body: the form body, as received.
        ///   - publicKey: Alipay's public key (from the console, or the Alipay certificate's key).
        ///   - appID: this merchant's app id, when the notification must be for it.
        ///   - sellerID: this merchant's seller (partner) id, when checked.
        ///   - signType: the merchant's sign type.
        /// - Throws: `PaymentError` `.malformedMessage`, `.signatureMismatch`, `.merchantMismatch`.
        public static func verify(
            _ body: some Collection<UInt8>, publicKey: RSAPublicKey, appID: String? = nil, sellerID: String? = nil,
            signType: SignType = .rsa2
        ) throws -> Notification {
            let fields = try FormBody.fields(body)
            try verifySignature(fields, publicKey: publicKey, signType: signType)
            return try checked(fields, appID: appID, sellerID: sellerID)
        }

        /// Verifies and parses a notification in certificate mode: an `alipay_cert_sn` in the
        /// body must name the loaded Alipay certificate, whose key verifies the signature.
        /// - Throws: as ``verify(_:publicKey:appID:sellerID:signType:)``, and `.unknownKey`.
        public static func verify(
            _ body: some Collection<UInt8>, certificates: CertificateMode, appID: String? = nil, sellerID: String? = nil,
            signType: SignType = .rsa2
        ) throws -> Notification {
            let fields = try FormBody.fields(body)
            if let answered = fields["alipay_cert_sn"] { try certificates.check(alipayCertSN: answered) }
            try verifySignature(fields, publicKey: certificates.alipayPublicKey, signType: signType)
            return try checked(fields, appID: appID, sellerID: sellerID)
        }

        private static func checked(_ fields: FormFields, appID: String?, sellerID: String?) throws -> Notification {
            if let appID, fields["app_id"] != appID {
                throw PaymentError(.merchantMismatch, provider: .alipay, "app_id is not this merchant's (\(appID))")
            }
            if let sellerID, fields["seller_id"] != sellerID {
                throw PaymentError(.merchantMismatch, provider: .alipay, "seller_id is not this merchant's (\(sellerID))")
            }
            func required(_ name: String) throws -> String {
                guard let value = fields[name], !value.isEmpty else {
                    throw PaymentError(.malformedMessage, provider: .alipay, "the notification has no \(name)")
                }
                return value
            }
            let amount: Money
            do {
                amount = try Money(decimal: try required("total_amount"), currency: .cny)
            } catch let error as PaymentError {
                throw error
            } catch {
                throw PaymentError(.malformedMessage, provider: .alipay, "total_amount is not an amount in yuan")
            }
            return Notification(
                appID: try required("app_id"), outTradeNo: try required("out_trade_no"), tradeNo: try required("trade_no"),
                tradeStatus: try required("trade_status"), totalAmount: amount, sellerID: fields["seller_id"], fields: fields)
        }

        /// Checks `sign` over fields already in a dictionary (a `return_url` query, say).
        public static func verifySignature(_ fields: [String: String], publicKey: RSAPublicKey, signType: SignType) throws {
            // A dictionary has unique names, so the fields always sort.
            let sorted = FormFields(fields.lazy.map { (name: $0.key, value: $0.value) }) ?? FormFields([])!
            try verifySignature(sorted, publicKey: publicKey, signType: signType)
        }

        /// Checks `sign` over the fields, as Alipay signs notifications.
        public static func verifySignature(_ fields: FormFields, publicKey: RSAPublicKey, signType: SignType) throws {
            guard let sign = fields["sign"], !sign.isEmpty else {
                throw PaymentError(.signatureMismatch, provider: .alipay, "the notification is not signed")
            }
            if let declared = fields["sign_type"], declared != signType.rawValue {
                throw PaymentError(
                    .signatureMismatch, provider: .alipay, "sign_type is \(declared.prefix(10)), not the merchant's \(signType.rawValue)")
            }
            let withoutSignType = fields.content(excluding: ["sign", "sign_type"])
            // The content keeping sign_type is built only when the usual one fails.
            guard
                Signer.isValidSignature(sign, content: withoutSignType, publicKey: publicKey, type: signType)
                    || (fields["sign_type"] != nil
                        && Signer.isValidSignature(
                            sign, content: fields.content(excluding: ["sign"]), publicKey: publicKey, type: signType))
            else {
                throw PaymentError(
                    .signatureMismatch, provider: .alipay, "the \(signType.rawValue) signature does not verify with Alipay's public key")
            }
        }

        /// Checks the trade number and amount against the stored order.
        /// - Throws: `PaymentError` `.malformedMessage` (another order) or `.amountMismatch`.
        public func check(outTradeNo expected: String, amount: Money) throws {
            guard outTradeNo == expected else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the notification is for \(outTradeNo), not \(expected)")
            }
            guard amount.currency == totalAmount.currency, amount.minorUnits == totalAmount.minorUnits else {
                throw PaymentError(
                    .amountMismatch, provider: .alipay, "the notification says \(totalAmount) but order \(expected) is for \(amount)")
            }
        }
    }
}
