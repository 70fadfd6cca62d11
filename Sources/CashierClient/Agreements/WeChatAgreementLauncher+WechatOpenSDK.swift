// Compiled where Tencent's WechatOpenSDK is linked (an iOS app), and on Linux by the test-only
// CashierClientPlatformCheck target against a declaration of its surface (Tests/PlatformStubs).
#if (canImport(WechatOpenSDK) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    import Foundation
    public import WechatOpenSDK

    /// WeChat Pay's app signing (委托代扣, `wechat_pre_entrust`): the launch's `pre_entrustweb_id`
    /// handed to WeChat in a `WXOpenBusinessWebViewReq` of business type 12; WeChat's answer comes
    /// back through ``WeChatResults`` (pass it as the delegate when WeChat reopens the app). A
    /// `url` launch (`entrustweb`) is opened with ``AgreementPageLauncher`` instead.
    public struct WeChatAgreementLauncher: AgreementLauncher {
        /// WeChat's business type for the signing page.
        static let signing: UInt32 = 12

        public init() {}

        /// Opens WeChat's signing page.
        /// - Parameters:
        ///   - launch: a ``AgreementLaunch/wechatPreEntrust(preEntrustWebID:)`` launch.
        ///   - agreement: the agreement it belongs to.
        /// - Returns: WeChat's `errCode` (0 only says the page was left normally, not that it was signed).
        /// - Throws: ``CashierClientError`` `invalid_method` for another kind.
        public func launch(_ launch: AgreementLaunch, for agreement: Agreement) async throws -> WalletOutcome {
            guard case .wechatPreEntrust(let id) = launch else {
                throw CashierClientError(
                    code: "invalid_method", message: "WeChatAgreementLauncher opens WeChat Pay's app signing (wechat_pre_entrust) only")
            }
            let request = WXOpenBusinessWebViewReq()
            request.businessType = Self.signing
            request.queryInfoDic = ["pre_entrustweb_id": id]
            return await WeChatResults.shared.send(request)
        }
    }
#endif
