import CashierWire
import WeChatPay

extension WalletParameters {
    /// WeChat Pay's signed parameters for the SDK's `PayReq` (APP pay).
    static func wechat(_ parameters: WeChatPay.AppPayParameters) -> WalletParameters { .wechat(parameters.fields) }

    /// WeChat Pay's signed parameters for `wx.requestPayment` and `WeixinJSBridge` (JSAPI pay).
    static func wechat(_ parameters: WeChatPay.JSAPIParameters) -> WalletParameters { .wechat(parameters.fields) }
}
