import Cashier

extension Alipay {
    /// What a payer is asked to sign (`alipay.user.agreement.page.sign`'s `biz_content`): the
    /// product, the merchant's number for the agreement, the scene the merchant signed with
    /// Alipay, how the payer is reached, and — for a cycle agreement — the schedule.
    ///
    /// ```swift
    /// let sign = Alipay.AgreementSign(externalAgreementNo: "A2026…", product: .cyclePay,
    ///                                 signScene: "INDUSTRY|DIGITAL_MEDIA", channel: "ALIPAYAPP", periodRule: rule)
    /// let url = try client.agreementSignURL(sign, notifyURL: notifyURL)
    /// ```
    public struct AgreementSign: Sendable, Equatable {
        /// `external_agreement_no`: the merchant's number; one agreement per number, scene and product.
        public var externalAgreementNo: String
        /// `personal_product_code` and `product_code`.
        public var product: AgreementProduct
        /// `sign_scene`, as in the merchant's contract with Alipay (`INDUSTRY|DIGITAL_MEDIA`, …).
        public var signScene: String
        /// `access_params.channel`: `ALIPAYAPP` (the app opens), `QRCODE` or `QRCODEORSMS` (a desktop page).
        public var channel: String
        /// `period_rule_params`: required for ``AgreementProduct/cyclePay``, absent otherwise.
        public var periodRule: PeriodRule?
        /// `sign_validity_period` (`2m`, `30d`, …): how long the signed agreement lasts, if limited.
        public var signValidityPeriod: String?
        /// `external_logon_id`: the payer's account at the merchant, shown on the agreement.
        public var externalLogonID: String?

        /// A request to sign.
        /// - Parameters:
        ///   - externalAgreementNo: the merchant's number, 1 to 32 characters.
        ///   - product: cycle or merchant-initiated withholding.
        ///   - signScene: the scene in the merchant's contract.
        ///   - channel: how the payer signs (`ALIPAYAPP`, `QRCODE`, `QRCODEORSMS`).
        ///   - periodRule: the schedule, for a cycle agreement.
        ///   - signValidityPeriod: how long the agreement lasts, if limited.
        ///   - externalLogonID: the payer's account at the merchant.
        public init(
            externalAgreementNo: String, product: AgreementProduct, signScene: String, channel: String = "ALIPAYAPP",
            periodRule: PeriodRule? = nil, signValidityPeriod: String? = nil, externalLogonID: String? = nil
        ) {
            self.externalAgreementNo = externalAgreementNo
            self.product = product
            self.signScene = signScene
            self.channel = channel
            self.periodRule = periodRule
            self.signValidityPeriod = signValidityPeriod
            self.externalLogonID = externalLogonID
        }

        /// The channels `access_params.channel` takes.
        public static let channels: Set<String> = ["ALIPAYAPP", "QRCODE", "QRCODEORSMS"]

        /// The checked `biz_content`.
        /// - Throws: `PaymentError.invalidRequest`: an empty or over-long number, an unknown
        ///   channel, a cycle agreement without a valid schedule (``PeriodRule/validate()``), a
        ///   schedule on a withholding agreement.
        public func biz() throws -> [String: Any] {
            func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .alipay, message) }
            guard !externalAgreementNo.isEmpty, externalAgreementNo.count <= 32 else {
                throw refuse("external_agreement_no must be 1 to 32 characters")
            }
            guard !signScene.isEmpty else { throw refuse("sign_scene is required (the scene in the merchant's contract)") }
            guard Self.channels.contains(channel) else { throw refuse("access_params.channel is ALIPAYAPP, QRCODE or QRCODEORSMS") }
            var biz: [String: Any] = [
                "personal_product_code": product.personalProductCode, "product_code": product.productCode, "sign_scene": signScene,
                "external_agreement_no": externalAgreementNo, "access_params": ["channel": channel],
            ]
            switch (product, periodRule) {
            case (.cyclePay, let rule?):
                try rule.validate()
                biz["period_rule_params"] = rule.biz
            case (.cyclePay, nil): throw refuse("a cycle agreement (CYCLE_PAY_AUTH_P) needs period_rule_params")
            case (.generalWithholding, nil): break
            case (.generalWithholding, _?): throw refuse("a withholding agreement (GENERAL_WITHHOLDING_P) has no period_rule_params")
            }
            if let signValidityPeriod { biz["sign_validity_period"] = signValidityPeriod }
            if let externalLogonID { biz["external_logon_id"] = externalLogonID }
            return biz
        }
    }
}
