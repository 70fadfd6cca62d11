/// How the app hands an agreement's ``AgreementLaunch`` to the wallet and learns what it said:
/// ``AgreementPageLauncher`` opens pages and Alipay's sign address, `WeChatAgreementLauncher`
/// the WeChat SDK's signing page, `ApplePayAgreementLauncher` the Apple Pay sheet. What the
/// wallet says is never the result: ``AgreementFlow`` asks your backend.
public protocol AgreementLauncher: Sendable {
    /// Shows the payer the wallet's signing step.
    /// - Parameters:
    ///   - launch: the agreement's launch, as the server created it.
    ///   - agreement: the pending agreement it belongs to.
    /// - Returns: what the wallet said when it handed back.
    /// - Throws: ``CashierClientError`` `invalid_method` for a launch this launcher does not open.
    func launch(_ launch: AgreementLaunch, for agreement: Agreement) async throws -> WalletOutcome
}
