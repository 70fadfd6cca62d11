public import Cashier
public import Foundation

extension WeChatPay.V2 {
    /// A verified withholding contract notification (签约/解约结果通知): the payer signed
    /// (`change_type` `ADD`) or the contract ended (`DELETE`), posted as XML to the signing
    /// request's `notify_url`.
    ///
    /// ``verify(_:merchant:accepting:)`` parses, checks `return_code`, the signature with the
    /// merchant's key, then `mch_id` (and `appid` when the notification names one), and only then
    /// reads the fields. Answer with ``NotificationReply``.
    ///
    /// The sign type is the one the signing was made with: `papay/entrustweb` is MD5 whatever
    /// the merchant's sign type, `papay/h5entrustweb` HMAC-SHA256; a notification declares
    /// HMAC-SHA256 in `sign_type` and is MD5 without it. `accepting` limits what is accepted.
    ///
    /// ```swift
    /// let contract = try WeChatPay.V2.ContractNotification.verify(body, merchant: merchant)
    /// if contract.changeType == .delete { stopCharging(contract.contractCode) }
    /// reply(WeChatPay.V2.NotificationReply.success.xmlString)
    /// ```
    public struct ContractNotification: Sendable {
        /// `change_type`: what happened to the contract.
        public enum ChangeType: String, Sendable {
            /// `ADD`: the payer signed it.
            case add = "ADD"
            /// `DELETE`: it ended (``terminationMode`` says how).
            case delete = "DELETE"
        }

        /// `mch_id`, already checked against the merchant.
        public let mchID: String
        /// `change_type`.
        public let changeType: ChangeType
        /// `contract_id`: WeChat Pay's number for the contract.
        public let contractID: String
        /// `contract_code`: the merchant's number for it.
        public let contractCode: String
        /// `plan_id`: its template.
        public let planID: String
        /// `openid`: the payer.
        public let openID: String?
        /// `operate_time`, as sent (`yyyy-MM-dd HH:mm:ss`, Beijing time).
        public let operateTime: String
        /// `contract_expired_time`.
        public let expiresAt: Date?
        /// `contract_termination_mode`, for `DELETE`.
        public let terminationMode: TerminationMode?
        /// `request_serial` of the signing request.
        public let requestSerial: String?
        /// Every field of the notification.
        public let document: XMLDocument

        /// Verifies and parses a contract notification body.
        /// - Parameters:
        ///   - body: the raw body as received.
        ///   - merchant: whose key and `mch_id` (and `appid`, when named) it must carry.
        ///   - accepting: the sign types accepted (both by default: see the discussion).
        /// - Throws: `PaymentError` — `.malformedMessage`, `.providerRejected` (return_code FAIL),
        ///   `.signatureMismatch`, `.merchantMismatch` — and nothing was trusted.
        public static func verify(
            _ body: some Collection<UInt8>, merchant: Merchant, accepting: Set<SignType> = [.md5, .hmacSHA256]
        ) throws -> ContractNotification {
            try verify(document: XMLDocument(parsing: body), merchant: merchant, accepting: accepting)
        }

        /// `true` when `body` looks like a contract notification (it has `change_type`), before
        /// anything is verified: which parser to use, never whether to trust it.
        /// - Parameter body: the raw body as received.
        public static func isContractNotification(_ body: some Collection<UInt8>) -> Bool {
            ByteSearch.contains(Array(body), marker)
        }

        private static let marker = Array("<change_type>".utf8)

        static func verify(document: XMLDocument, merchant: Merchant, accepting: Set<SignType>) throws -> ContractNotification {
            guard document.field("return_code", is: "SUCCESS") else {
                throw PaymentError(
                    .providerRejected, provider: .wechatV2, "return_code is not SUCCESS", providerCode: document["return_code"],
                    providerMessage: document["return_msg"])
            }
            guard let type = SignType(field: document["sign_type"] ?? "MD5"), accepting.contains(type) else {
                throw PaymentError(.signatureMismatch, provider: .wechatV2, "the contract notification's sign_type is not accepted")
            }
            try document.verifySignature(signer: merchant.signer, type: type)
            guard document["mch_id"] == merchant.mchID else {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "mch_id is not this merchant's (\(merchant.mchID))")
            }
            if let appID = document["appid"], appID != merchant.appID {
                throw PaymentError(.merchantMismatch, provider: .wechatV2, "appid is not this merchant's (\(merchant.appID))")
            }
            guard let change = document["change_type"].flatMap(ChangeType.init(rawValue:)) else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "change_type is missing or neither ADD nor DELETE")
            }
            guard let contractID = document["contract_id"], !contractID.isEmpty, let contractCode = document["contract_code"],
                !contractCode.isEmpty, let planID = document["plan_id"], !planID.isEmpty
            else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the notification lacks contract_id, contract_code or plan_id")
            }
            return ContractNotification(
                mchID: merchant.mchID, changeType: change, contractID: contractID, contractCode: contractCode, planID: planID,
                openID: document["openid"].flatMap { $0.isEmpty ? nil : $0 }, operateTime: document["operate_time"] ?? "",
                expiresAt: Contract.time(document["contract_expired_time"]),
                terminationMode: document["contract_termination_mode"].flatMap(TerminationMode.init(rawValue:)),
                requestSerial: document["request_serial"], document: document)
        }
    }
}
