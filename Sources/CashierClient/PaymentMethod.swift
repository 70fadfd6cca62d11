/// The payment methods the server offers (`POST /v1/orders/{id}/payments`).
public enum PaymentMethod: String, Sendable, CaseIterable {
    case wechatApp = "wechat.app"
    case wechatNative = "wechat.native"
    /// WeChat H5: a page opened in the phone's browser.
    case wechatH5 = "wechat.h5"
    case alipayApp = "alipay.app"
    case alipayQR = "alipay.qr"
    /// Alipay's mobile web cashier (when the Alipay app is missing).
    case alipayWap = "alipay.wap"
    case applePay = "applepay"
}
