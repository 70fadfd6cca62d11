public import Cashier

extension Alipay {
    /// An agreement as `alipay.user.agreement.query` answers it.
    public struct Agreement: Sendable, Equatable {
        /// `status`.
        public enum Status: Sendable, Equatable {
            /// `TEMP`: the payer opened the signing but it never took effect.
            case temporary
            /// `NORMAL`: signed; charges may be made under it.
            case normal
            /// `STOP`: ended (unsigned by the payer or the merchant, or expired).
            case stopped
            /// Any other word Alipay answers, verbatim.
            case other(String)

            /// Reads Alipay's word.
            /// - Parameter rawValue: `TEMP`, `NORMAL`, `STOP`, …
            public init(rawValue: String) {
                switch rawValue {
                case "TEMP": self = .temporary
                case "NORMAL": self = .normal
                case "STOP", "UNSIGN": self = .stopped
                default: self = .other(rawValue)
                }
            }

            /// Alipay's word.
            public var rawValue: String {
                switch self {
                case .temporary: "TEMP"
                case .normal: "NORMAL"
                case .stopped: "STOP"
                case .other(let word): word
                }
            }
        }

        /// `agreement_no`, Alipay's number.
        public let agreementNo: String
        /// `external_agreement_no`, the merchant's.
        public let externalAgreementNo: String?
        /// `status`.
        public let status: Status
        /// `principal_id` (or `alipay_user_id`): the payer's Alipay user id.
        public let alipayUserID: String?
        /// `alipay_logon_id`, masked.
        public let alipayLogonID: String?
        /// `personal_product_code`.
        public let personalProductCode: String?
        /// `sign_scene`.
        public let signScene: String?
        /// `sign_time`, `valid_time`, `invalid_time` (`yyyy-MM-dd HH:mm:ss`, Beijing).
        public let signTime: String?
        /// When it took effect.
        public let validTime: String?
        /// When it stops being valid.
        public let invalidTime: String?
        /// `next_deduct_time` (`yyyy-MM-dd`): the next period's charge date, for a cycle agreement.
        public let nextDeductTime: String?
        /// `last_deduct_time`: the last charge's date.
        public let lastDeductTime: String?
        /// `single_quota`: the most one charge may take.
        public let singleQuota: Money?

        /// An agreement.
        /// - Parameters:
        ///   - agreementNo: Alipay's number.
        ///   - externalAgreementNo: the merchant's number.
        ///   - status: where it stands.
        ///   - alipayUserID: the payer.
        ///   - alipayLogonID: the payer's masked account.
        ///   - personalProductCode: the product.
        ///   - signScene: the scene.
        ///   - signTime: when it was signed.
        ///   - validTime: when it took effect.
        ///   - invalidTime: when it lapses.
        ///   - nextDeductTime: the next charge date.
        ///   - lastDeductTime: the last charge date.
        ///   - singleQuota: the most one charge may take.
        public init(
            agreementNo: String, externalAgreementNo: String?, status: Status, alipayUserID: String?, alipayLogonID: String?,
            personalProductCode: String?, signScene: String?, signTime: String?, validTime: String?, invalidTime: String?,
            nextDeductTime: String?, lastDeductTime: String?, singleQuota: Money?
        ) {
            self.agreementNo = agreementNo
            self.externalAgreementNo = externalAgreementNo
            self.status = status
            self.alipayUserID = alipayUserID
            self.alipayLogonID = alipayLogonID
            self.personalProductCode = personalProductCode
            self.signScene = signScene
            self.signTime = signTime
            self.validTime = validTime
            self.invalidTime = invalidTime
            self.nextDeductTime = nextDeductTime
            self.lastDeductTime = lastDeductTime
            self.singleQuota = singleQuota
        }

        /// Reads a verified response node.
        /// - Throws: `PaymentError.malformedMessage` without `agreement_no` and `status`.
        init(node: [String: Any]) throws {
            guard let number = node["agreement_no"] as? String, !number.isEmpty, let status = node["status"] as? String else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay, "alipay.user.agreement.query answered without agreement_no and status")
            }
            self.init(
                agreementNo: number, externalAgreementNo: node["external_agreement_no"] as? String, status: Status(rawValue: status),
                alipayUserID: node["principal_id"] as? String ?? node["alipay_user_id"] as? String,
                alipayLogonID: node["alipay_logon_id"] as? String, personalProductCode: node["personal_product_code"] as? String,
                signScene: node["sign_scene"] as? String, signTime: node["sign_time"] as? String, validTime: node["valid_time"] as? String,
                invalidTime: node["invalid_time"] as? String, nextDeductTime: node["next_deduct_time"] as? String,
                lastDeductTime: node["last_deduct_time"] as? String,
                singleQuota: (node["single_quota"] as? String).flatMap { try? Money(decimal: $0, currency: .cny) })
        }
    }
}
