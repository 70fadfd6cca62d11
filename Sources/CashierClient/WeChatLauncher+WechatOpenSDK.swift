// Compiled where Tencent's WechatOpenSDK is linked (an iOS app), and on Linux by the test-only
// CashierClientPlatformCheck target against a declaration of its surface (Tests/PlatformStubs).
#if (canImport(WechatOpenSDK) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    public import Foundation
    public import WechatOpenSDK

    /// WeChat's answers, delivered to the payment waiting for them. Pass it as the delegate when
    /// WeChat reopens the app:
    ///
    /// ```swift
    /// func application(_ app: UIApplication, open url: URL, options: …) -> Bool { WeChatResults.shared.handleOpen(url) }
    /// ```
    public final class WeChatResults: NSObject, WXApiDelegate, @unchecked Sendable {
        public static let shared = WeChatResults()
        private let handoff = WalletHandoff<WalletOutcome>()

        /// Hands `request` (a `PayReq`, or the agreement's `WXOpenBusinessWebViewReq`) to WeChat and
        /// waits for its `onResp` (or for WeChat failing to open).
        public func send(_ request: BaseReq) async -> WalletOutcome {
            await handoff.wait(supersededWith: .wechat(errCode: -2, errStr: "superseded by another payment")) {
                WXApi.send(request) { sent in
                    if !sent { self.deliver(.wechat(errCode: -3, errStr: "WeChat could not be opened: is it installed?")) }
                }
            }
        }

        /// For `application(_:open:options:)`: `true` when the URL was WeChat's.
        public func handleOpen(_ url: URL) -> Bool { WXApi.handleOpen(url, delegate: self) }

        public func onReq(_ req: BaseReq) {}

        public func onResp(_ resp: BaseResp) {
            guard resp is PayResp || resp is WXOpenBusinessWebViewResp else { return }
            deliver(.wechat(errCode: Int(resp.errCode), errStr: resp.errStr.isEmpty ? nil : resp.errStr))
        }

        private func deliver(_ outcome: WalletOutcome) { handoff.deliver(outcome) }
    }

    /// WeChat Pay in the app (`wechat.app`): the server's signed `PayReq` handed to WeChat; its
    /// answer comes back through ``WeChatResults`` and is then confirmed with the server.
    public struct WeChatLauncher: PaymentLauncher {
        public init() {}

        public func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome {
            guard case .wechat(let fields) = parameters else {
                throw CashierClientError(
                    code: "invalid_method", message: "WeChatLauncher launches WeChat Pay app payments (wechat.app) only")
            }
            let request = PayReq()
            request.partnerId = fields.partnerID
            request.prepayId = fields.prepayID
            request.package = fields.package
            request.nonceStr = fields.nonceStr
            request.timeStamp = fields.timeStamp
            request.sign = fields.sign
            return await WeChatResults.shared.send(request)
        }
    }
#endif
