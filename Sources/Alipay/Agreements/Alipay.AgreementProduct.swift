extension Alipay {
    /// Which agreement a payer signs: the personal product (`personal_product_code`, what the
    /// payer agrees to) and the merchant's product that charges under it (`product_code` on the
    /// sign request and on `alipay.trade.pay`).
    public enum AgreementProduct: Sendable, Equatable, CaseIterable {
        /// 周期扣款: charges on a schedule the payer saw (`period_rule_params`), at most once a period.
        case cyclePay
        /// 商家扣款: charges when the merchant asks, without a schedule.
        case generalWithholding

        /// `personal_product_code`: `CYCLE_PAY_AUTH_P` or `GENERAL_WITHHOLDING_P`.
        public var personalProductCode: String {
            switch self {
            case .cyclePay: "CYCLE_PAY_AUTH_P"
            case .generalWithholding: "GENERAL_WITHHOLDING_P"
            }
        }

        /// `product_code`: `CYCLE_PAY_AUTH` or `GENERAL_WITHHOLDING`.
        public var productCode: String {
            switch self {
            case .cyclePay: "CYCLE_PAY_AUTH"
            case .generalWithholding: "GENERAL_WITHHOLDING"
            }
        }

        /// The product whose `personal_product_code` this is; `nil` for another.
        /// - Parameter personalProductCode: `CYCLE_PAY_AUTH_P` or `GENERAL_WITHHOLDING_P`.
        public init?(personalProductCode: String) {
            guard let product = Self.allCases.first(where: { $0.personalProductCode == personalProductCode }) else { return nil }
            self = product
        }

        /// The product whose `product_code` this is; `nil` for another.
        /// - Parameter productCode: `CYCLE_PAY_AUTH` or `GENERAL_WITHHOLDING`.
        public init?(productCode: String) {
            guard let product = Self.allCases.first(where: { $0.productCode == productCode }) else { return nil }
            self = product
        }
    }
}
