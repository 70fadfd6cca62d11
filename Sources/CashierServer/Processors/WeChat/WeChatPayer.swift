import Cashier
import WeChatPay

/// Who a WeChat Pay attempt is for, the same under API v2 and v3: the app's appid, or a mini
/// program's with the openid its `js_code` stands for (exchanged here, with the secret, so the
/// device never needs it); JSAPI needs the payer's openid up front.
struct WeChatPayer: Sendable {
    let appID: String
    let mchID: String
    let miniProgram: MerchantConfiguration.MiniProgram?
    /// The official account JSAPI payments are placed under (its appid), when one is configured.
    let officialAccountID: String?
    let transport: any HTTPTransport

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        switch method {
        case .wechatMiniProgram:
            guard let mini = miniProgram else {
                throw PaymentError(.invalidRequest, "wechat.miniprogram needs a mini program (appid and secret) configured on this server")
            }
            guard let code = request.js_code, !code.isEmpty else {
                throw PaymentError(.invalidRequest, "wechat.miniprogram needs js_code, the code wx.login gave the mini program")
            }
            let openID = try await WeChatPay.MiniProgram(
                appID: mini.appID, secret: mini.secret, transport: transport, baseURL: mini.baseURL
            )
            .session(code: code).openID
            return PreparedAttempt(appID: mini.appID, merchantID: mchID, payer: openID)
        case .wechatJSAPI:
            guard let openID = request.openid, !openID.isEmpty else {
                throw PaymentError(
                    .invalidRequest, "wechat.jsapi needs the payer's openid (from OAuth; mini programs use wechat.miniprogram)")
            }
            // The openid is the payer's under the official account that identified them.
            return PreparedAttempt(appID: officialAccountID ?? appID, merchantID: mchID, payer: openID)
        default:
            return PreparedAttempt(appID: appID, merchantID: mchID, payer: nil)
        }
    }

    /// A WeChat refund status, the same words in API v2 and v3: `SUCCESS`, `PROCESSING`, or a
    /// failure (v2 `CHANGE` — the payer's account is gone — and `REFUNDCLOSE`; v3 `ABNORMAL`, `CLOSED`).
    static func refundState(_ status: String, id: String?) -> ProviderRefundState {
        switch status {
        case "SUCCESS": .succeeded(providerRefundID: id)
        case "PROCESSING": .processing
        default: .failed("WeChat reports the refund \(status)")
        }
    }

    /// The currencies WeChat Pay takes for this merchant: CNY, and the cross-border ones configured.
    static func currencies(_ crossBorder: Set<Currency>) -> Set<Currency> { crossBorder.union([.cny]) }
}
