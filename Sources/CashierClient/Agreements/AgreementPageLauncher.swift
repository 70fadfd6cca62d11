public import Foundation

/// Opens an agreement's page (`url`: WeChat Pay's `entrustweb`, Alipay's page sign) or
/// Alipay's sign string (as ``AgreementLaunch/alipaySignURL(signString:)``) with the app's own
/// way of opening an address — `UIApplication.open(_:)`, a web view — and leaves the result to
/// the server: the outcome is always "only the server knows" (``WalletOutcome/qrCodeShown``).
///
/// ```swift
/// let launcher = AgreementPageLauncher { url in await UIApplication.shared.open(url) }
/// let result = try await flow.sign(agreement, launcher: launcher)
/// ```
public struct AgreementPageLauncher: AgreementLauncher {
    /// Opens an address; `false` when it could not be opened (Alipay not installed).
    public typealias Open = @Sendable (_ url: URL) async -> Bool

    private let open: Open

    /// - Parameter open: opens an address for the payer and returns once it is open (or not).
    public init(open: @escaping Open) {
        self.open = open
    }

    /// Opens `launch`'s address.
    /// - Parameters:
    ///   - launch: a `url` or `alipay_sign_string` launch.
    ///   - agreement: the agreement it belongs to.
    /// - Returns: ``WalletOutcome/qrCodeShown``: the payer was shown a page, only the server knows more.
    /// - Throws: ``CashierClientError`` `invalid_method` for another kind; `wallet_unavailable`
    ///   when the address could not be opened.
    public func launch(_ launch: AgreementLaunch, for agreement: Agreement) async throws -> WalletOutcome {
        let url: URL
        switch launch {
        case .url(let page): url = page
        case .alipaySignString(let string): url = AgreementLaunch.alipaySignURL(signString: string)
        case .wechatPreEntrust, .applePayRequest:
            throw CashierClientError(
                code: "invalid_method", message: "AgreementPageLauncher opens pages and Alipay's sign string only, not \(agreement.method)")
        }
        guard await open(url) else {
            throw CashierClientError(code: "wallet_unavailable", message: "the signing page could not be opened: is the wallet installed?")
        }
        return .qrCodeShown
    }
}
